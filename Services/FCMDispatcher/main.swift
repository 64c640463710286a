// herald-fcm: consumes dispatch.fcm and sends each request to FCM HTTP v1 over HTTP/2, with
// the app's service-account OAuth; outcomes, revocations and broker-scheduled retries follow.
import HeraldServices

await HeraldExecutable.fcm.main()
