// herald-sandbox: a local emulator of FCM HTTP v1 and Huawei Push Kit (and their OAuth
// endpoints), with token rules, fault injection and an inbox. Plain HTTP on
// HERALD_HTTP_PORT (8090, with /healthz, /readyz, /metrics), HTTPS with HTTP/2 on
// HERALD_SANDBOX_HTTPS_PORT (8443). It does not use the broker.
import HeraldServices

await HeraldExecutable.sandbox.main()
