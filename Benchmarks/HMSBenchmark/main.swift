// herald-hms-bench: a benchmark, not a test.
//
//   herald-hms-bench <endpoint> <hms-client.json> <client-secret-file> <ca.pem> [deliveries=200000] [rounds=3]
//
// One process sends to Push Kit (the sandbox, started by scripts/bench-hms) the way herald-hms
// does: batches of up to 1,000 deliveries (its prefetch), 4 batches in flight (the dispatch
// stage's batch slots), each handed whole to `HMSDispatcher`, which groups it into multicast
// requests with no timer; one HTTP/2 connection with 100 streams, OAuth included. Each round runs
// two measures: `multicast`, plain deliveries of one event per 1,000 tokens (so they share
// requests), and `single`, encrypted deliveries (each its own request). Reports token
// deliveries/s per round and the medians, p50/p99 per-delivery latency and resident memory.
import BenchmarkSupport
import DispatchKit
import Foundation
import HeraldModel
import HMS
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
/// Deliveries a batch (the stage's prefetch) and batches sent at once (its batch slots).
let batchSize = Int(ProcessInfo.processInfo.environment["BENCH_BATCH"] ?? "1000") ?? 1000
let batchesInFlight = Int(ProcessInfo.processInfo.environment["BENCH_BATCHES_IN_FLIGHT"] ?? "4") ?? 4

let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "hms", maxConcurrentStreams: 100, maxConnectionsPerHost: 1, caFile: arguments[3]))
let client = HMSClient(
    app: "bench", appId: clientFile["appId"]!, clientId: clientFile["clientId"]!, clientSecret: secret,
    endpoint: endpoint, tokenEndpoint: "\(endpoint)/oauth2/v3/token", transport: transport)
let dispatcher = ProviderDispatcher<HMSClient>(platform: .hms, clients: ["bench": client], transports: [transport])

/// When the deliveries expire: one instant for all, as deliveries of one event share theirs
/// (the event's time plus its TTL).
let expiry = Date().addingTimeInterval(3600)
/// `BENCH_PLAIN_SINGLES=1`: single sends are plain deliveries of distinct events (they pass
/// alone, as no other delivery shares their content), instead of encrypted ones (which skip it).
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

/// Sends `count` deliveries in batches of `batchSize`, `batchesInFlight` at once; returns
/// deliveries/s, each batch's latency, and the batches with a failed delivery.
func measure(count: Int, round: Int, multicast: Bool) async -> ConcurrentSends.Result {
    let batches = (count + batchSize - 1) / batchSize
    var result = await ConcurrentSends.measure(count: batches, concurrency: batchesInFlight) { b in
        let batch = (b * batchSize..<min(count, (b + 1) * batchSize)).map { request($0, round: round, multicast: multicast) }
        return await dispatcher.send(batch).allSatisfy { if case .delivered = $0 { true } else { false } }
    }
    result.rate *= Double(count) / Double(batches)
    return result
}

// Warm up: the token and the connection.
_ = await measure(count: 2000, round: -1, multicast: true)
_ = await measure(count: 2000, round: -1, multicast: false)
let rssStart = residentMiB()
var multicastRates: [Double] = []
var singleRates: [Double] = []
for round in 0..<rounds {
    let multicast = await measure(count: total, round: round, multicast: true)
    print(#"{"round":\#(round),"measure":"multicast","deliveries":\#(total),"perSecond":\#(Int(multicast.rate)),"batchP50ms":\#(multicast.latency.percentile(0.5)),"batchP99ms":\#(multicast.latency.percentile(0.99)),"failures":\#(multicast.failures)}"#)
    let singleCount = max(1, total / 5)
    let single = await measure(count: singleCount, round: round, multicast: false)
    print(#"{"round":\#(round),"measure":"single","deliveries":\#(singleCount),"perSecond":\#(Int(single.rate)),"batchP50ms":\#(single.latency.percentile(0.5)),"batchP99ms":\#(single.latency.percentile(0.99)),"failures":\#(single.failures)}"#)
    multicastRates.append(multicast.rate)
    singleRates.append(single.rate)
}
OperationRate.report("hms multicast token deliveries/s", multicastRates)
OperationRate.report("hms single sends/s", singleRates)
print(#"{"rssStartMiB":\#(String(format: "%.1f", rssStart)),"rssEndMiB":\#(String(format: "%.1f", residentMiB()))}"#)
await transport.close()
