// herald-hms: consumes dispatch.hms and sends to Huawei Push Kit over HTTP/2 with each app's
// client-credentials OAuth. Plain deliveries of one event arriving within a short window go
// as one multicast request; outcomes, revocations and broker-scheduled retries follow.
import DispatchKit
import HMSSender
import ServiceKit

await ServiceRuntime.main(name: "herald-hms", defaultPort: 8085) { runtime in
    let settings = try HMSSettings.fromEnvironment()
    let dispatcher = try HMSDispatcher(hmsApps: runtime.apps, logger: runtime.logger)
    let window = SendWindow(window: settings.multicastWindow, limit: HMSClient.maxTokens, joins: HMSMulticast.joins, send: dispatcher.send)
    return ServiceParts(
        clients: dispatcher.transports,
        services: DispatchStage.services(runtime: runtime, platform: .hms, prefetch: settings.prefetch, send: window.send))
}
