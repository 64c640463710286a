// herald-webhook-bench: a benchmark, not a test.
//
//   herald-webhook-bench <receiver-url> [forwards=50000] [rounds=3]
//
// One process forwards to a local receiver (the sandbox's `POST /webhooks/{name}`, started
// as its own process by scripts/bench-webhook) the way herald-webhook does: its prefetch
// (512) of deliveries in flight through `WebhookDispatcher`, with the default settings (32
// connections to the destination, HTTP/1.1), each forward encoded, signed with two secrets
// (as while rotating), its host resolved and checked. Reports forwards/s per round and the
// median, p50/p99 per-forward latency and resident memory.
import BenchmarkSupport
import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit
import Webhook

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 1 else {
    FileHandle.standardError.write(Data("usage: herald-webhook-bench <receiver-url> [forwards] [rounds]\n".utf8))
    exit(64)
}
let url = arguments[0]
let total = arguments.count > 1 ? Int(arguments[1]) ?? 50_000 : 50_000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let settings = try WebhookSettings.fromEnvironment()
let concurrency = Int(settings.prefetch)

let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("herald-webhook-bench-\(UUID().uuidString)")
try Data((WebhookSigner.generateSecret() + "\n" + WebhookSigner.generateSecret() + "\n").utf8).write(to: secretFile)
defer { try? FileManager.default.removeItem(at: secretFile) }
let apps = AppsConfiguration(apps: ["bench": AppConfiguration(delivery: .init(mode: .webhook, url: url, signingSecretFile: secretFile.path, allowPrivateNetworks: true))])
let dispatcher = try ProviderDispatcher<WebhookClient>(webhookApps: apps, settings: settings, logger: Logger(label: "bench"))

let occurredAt = Date()
/// Forward `n` of a round: a chat message for one device of an app in webhook mode.
@Sendable func request(_ n: Int, round: Int) -> DispatchRequest {
    let event = "r\(round)-e\(n / 10)"
    return DispatchRequest(
        deliveryId: "\(event)-\(n)", eventId: event, app: "bench", kind: "message.created", platform: .webhook, deviceId: "device-\(n)",
        token: "", os: .android, data: ["channelId": "channel-\(n % 100)", "actorId": "user-\(n % 1000)", "messageType": "text"],
        notification: DispatchRequest.Notification(title: "Ann (General)", body: "See you at ten"), ttlSeconds: 3600,
        forward: DispatchRequest.WebhookForward(
            source: .upstra, occurredAt: occurredAt, context: ["channelId": "channel-\(n % 100)", "actorId": "user-\(n % 1000)"],
            recipient: WebhookRecipient(userId: "user-\(n)", deviceId: "device-\(n)", platform: .fcm, token: "fcm-token-\(n)")))
}

/// Forwards `count` deliveries with `concurrency` callers; returns forwards/s and latencies.
func measure(count: Int, round: Int) async -> ConcurrentSends.Result {
    await ConcurrentSends.measure(count: count, concurrency: concurrency) { n in
        if case .delivered = await dispatcher.send([request(n, round: round)])[0] { return true }
        return false
    }
}

_ = await measure(count: 2000, round: -1)  // warm up: connections
let rssStart = residentMiB()
var rates: [Double] = []
for round in 0..<rounds {
    let result = await measure(count: total, round: round)
    print(#"{"round":\#(round),"forwards":\#(total),"perSecond":\#(Int(result.rate)),"p50ms":\#(result.latency.percentile(0.5)),"p99ms":\#(result.latency.percentile(0.99)),"failures":\#(result.failures)}"#)
    rates.append(result.rate)
}
OperationRate.report("webhook forwards/s", rates)
print(#"{"rssStartMiB":\#(String(format: "%.1f", rssStart)),"rssEndMiB":\#(String(format: "%.1f", residentMiB()))}"#)
for transport in dispatcher.transports { await transport.close() }
