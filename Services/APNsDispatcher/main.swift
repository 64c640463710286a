// herald-apns: consumes dispatch.apns and sends each request to Apple's APNs over HTTP/2,
// with the app's token-based provider token; outcomes, revocations and broker-scheduled
// retries follow.
import HeraldServices

await HeraldExecutable.apns.main()
