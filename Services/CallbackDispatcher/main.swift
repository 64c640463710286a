// herald-callback: consumes dispatch.callback and posts each callback (a device revoked) to
// its app's callback endpoint as a signed Standard Webhooks POST, after checking the
// addresses the host resolves to; broker-scheduled retries follow, apart from every push.
import HeraldServices

await HeraldExecutable.callback.main()
