// herald-sandbox: a local emulator of each provider's service (FCM HTTP v1, Huawei Push Kit,
// APNs, their OAuth endpoints) and a webhook receiver, with token rules, fault injection and
// an inbox. A tool for development and tests: the production `herald` does not link it.
await SandboxService.main()
