// herald-fcm: consumes dispatch.fcm and sends each request to FCM HTTP v1 over HTTP/2, with
// the app's service-account OAuth; outcomes, revocations and broker-scheduled retries follow.
import DispatchKit
import FCMSender
import ServiceKit

await ServiceRuntime.main(name: "herald-fcm", defaultPort: 8084) { runtime in
    let dispatcher = try FCMDispatcher(fcmApps: runtime.apps, logger: runtime.logger)
    return ServiceParts(
        clients: dispatcher.transports,
        services: DispatchStage.services(runtime: runtime, platform: .fcm, prefetch: 200, send: dispatcher.send))
}
