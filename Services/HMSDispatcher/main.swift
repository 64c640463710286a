// herald-hms: consumes dispatch.hms and sends to Huawei Push Kit over HTTP/2 with each app's
// client-credentials OAuth. Each batch the stage takes goes to the client, which sends plain
// deliveries of one event as one multicast request; outcomes, revocations and
import HeraldServices

await HeraldExecutable.hms.main()
