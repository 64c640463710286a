// herald-hms-bench: a benchmark, not a test.
//
//   herald-hms-bench <endpoint> <hms-client.json> <client-secret-file> <ca.pem> [deliveries=200000] [rounds=3]
//
// One process sends to Push Kit (the sandbox, started by scripts/bench-hms) the way herald-hms
// does: 1,000 concurrent deliveries (its prefetch) through the 20 ms `SendWindow` into
// `HMSDispatcher`, one HTTP/2 connection with 100 streams, OAuth included. Each round runs
// two measures: `multicast`, plain deliveries of one event per 1,000 tokens (so they share
// requests), and `single`, encrypted deliveries (each its own request). Reports token
// deliveries/s per round and the medians, p50/p99 per-delivery latency and resident memory.
import BenchmarkSupport
import DispatchKit
import Foundation
import HeraldModel
import HMSSender
import HTTPTransport
import Logging

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: herald-hms-bench <endpoint> <hms-client.json> <client-secret-file> <ca.pem> [deliveries] [rounds]\n".utf8))
    exit(64)
}
let endpoint = arguments[0]
let clientFile = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
let secret = try String(contentsOfFile: arguments[2], encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
let total = arguments.count > 4 ? Int(arguments[4]) ?? 200_000 : 200_000
let rounds = arguments.count > 5 ? Int(arguments[5]) ?? 3 : 3
let concurrency = Int(ProcessInfo.processInfo.environment["BENCH_CONCURRENCY"] ?? "1000") ?? 1000

let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "hms", maxConcurrentStreams: 100, maxConnectionsPerHost: 1, caFile: arguments[3]))
let client = HMSClient(
    app: "bench", appId: clientFile["appId"]!, clientId: clientFile["clientId"]!, clientSecret: secret,
    endpoint: endpoint, tokenEndpoint: "\(endpoint)/oauth2/v3/token", transport: transport)
let dispatcher = HMSDispatcher(platform: .hms, clients: ["bench": client], transports: [transport])
let window = SendWindow(window: .milliseconds(20), limit: HMSClient.maxTokens, joins: HMSMulticast.joins, send: dispatcher.send)

/// When the deliveries expire: one instant for all, as deliveries of one event share theirs
/// (the event's time plus its TTL).
let expiry = Date().addingTimeInterval(3600)
/// `BENCH_PLAIN_SINGLES=1`: single sends are plain deliveries of distinct events (they pass
/// through the window and go alone), instead of encrypted ones (which skip it).
let plainSingles = ProcessInfo.processInfo.environment["BENCH_PLAIN_SINGLES"] == "1"

/// Delivery `n` of a round: plain and shared by blocks of 1,000 (multicast), or encrypted-looking
/// and alone (single).
@Sendable func request(_ n: Int, round: Int, multicast: Bool) -> DispatchRequest {
    let event = multicast ? "m\(round)-\(n / 1000)" : "s\(round)-\(n)"
    let data = multicast || plainSingles
        ? ["herald": "1", "event": event, "kind": "value.changed", "path": "/boards/1/title"]
        : ["herald": "1", "enc": "aes128gcm", "kid": "k", "payload": String(repeating: "A", count: 400)]
    return DispatchRequest(
        deliveryId: "\(event)-\(n)", eventId: event, app: "bench", kind: "value.changed", platform: .hms, deviceId: "d\(n)",
        token: "bench-\(n)", os: .android, data: data, ttlSeconds: 3600, expiresAt: expiry)
}

/// Sends `count` deliveries with `concurrency` callers; returns deliveries/s and latencies.
func measure(count: Int, round: Int, multicast: Bool) async -> ConcurrentSends.Result {
    await ConcurrentSends.measure(count: count, concurrency: concurrency) { n in
        if case .delivered = await window.send(request(n, round: round, multicast: multicast)) { return true }
        return false
    }
}

// Warm up: the token and the connection.
_ = await measure(count: 2000, round: -1, multicast: true)
_ = await measure(count: 2000, round: -1, multicast: false)
let rssStart = residentMiB()
var multicastRates: [Double] = []
var singleRates: [Double] = []
for round in 0..<rounds {
    let multicast = await measure(count: total, round: round, multicast: true)
    print(#"{"round":\#(round),"measure":"multicast","deliveries":\#(total),"perSecond":\#(Int(multicast.rate)),"p50ms":\#(multicast.latency.percentile(0.5)),"p99ms":\#(multicast.latency.percentile(0.99)),"failures":\#(multicast.failures)}"#)
    let singleCount = max(1, total / 5)
    let single = await measure(count: singleCount, round: round, multicast: false)
    print(#"{"round":\#(round),"measure":"single","deliveries":\#(singleCount),"perSecond":\#(Int(single.rate)),"p50ms":\#(single.latency.percentile(0.5)),"p99ms":\#(single.latency.percentile(0.99)),"failures":\#(single.failures)}"#)
    multicastRates.append(multicast.rate)
    singleRates.append(single.rate)
}
OperationRate.report("hms multicast token deliveries/s", multicastRates)
OperationRate.report("hms single sends/s", singleRates)
print(#"{"rssStartMiB":\#(String(format: "%.1f", rssStart)),"rssEndMiB":\#(String(format: "%.1f", residentMiB()))}"#)
await transport.close()
