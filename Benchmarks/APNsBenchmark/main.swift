// herald-apns-bench: a benchmark, not a test.
//
//   herald-apns-bench <endpoint> <apns.json> <apns-key.p8> <ca.pem> [sends=200000] [streams=100] [rounds=3]
//
// One process sends to APNs (the sandbox, started by scripts/bench-apns) the way herald-apns
// does: APNsClient over one HTTPTransport, one HTTP/2 connection with `streams` concurrent
// streams, ES256 provider token included. Reports sends/s of each round and their median,
// p50/p99 send latency and resident memory.
import APNs
import BenchmarkSupport
import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: herald-apns-bench <endpoint> <apns.json> <apns-key.p8> <ca.pem> [sends] [streams] [rounds]\n".utf8))
    exit(64)
}
struct Demo: Decodable { var teamId, keyId, topic: String }
let demo = try JSONDecoder().decode(Demo.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[1])))
let total = arguments.count > 4 ? Int(arguments[4]) ?? 200_000 : 200_000
let streams = arguments.count > 5 ? Int(arguments[5]) ?? 100 : 100
let rounds = arguments.count > 6 ? Int(arguments[6]) ?? 3 : 3

let settings = APNsSettings(teamId: demo.teamId, keyId: demo.keyId, keyFile: arguments[2], topic: demo.topic, environment: .development, endpoint: arguments[0], caFile: arguments[3])
let key = try APNsSigningKey.load(path: arguments[2], teamId: demo.teamId, keyId: demo.keyId, setting: "keyFile")
let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "apns", maxConcurrentStreams: streams, maxConnectionsPerHost: 1, caFile: arguments[3]))
let client = APNsClient(app: "bench", settings: settings, key: key, transport: transport)

/// A 32-byte token in hex, different for each send.
@Sendable func token(_ n: Int) -> String {
    let hex = String(n, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}
@Sendable func request(_ n: Int) -> DispatchRequest {
    DispatchRequest(
        deliveryId: "b\(n)", eventId: "e\(n)", app: "bench", kind: "bench", platform: .apns, deviceId: "d\(n % streams)",
        token: token(n), os: .ios, data: ["herald": "1", "event": "e\(n)", "kind": "bench"],
        notification: DispatchRequest.Notification(title: "Bench", body: "Message \(n)"), priority: .high)
}
// Warm up: the provider token and the connection.
_ = await client.send(request(0))
let rssStart = residentMiB()
var rates: [Double] = []
var last: ConcurrentSends.Result?
for round in 0..<rounds {
    let offset = (round + 1) * 10_000_000
    let result = await ConcurrentSends.measure(count: total, concurrency: streams) { n in
        if case .delivered = await client.send(request(offset + n)) { return true }
        return false
    }
    rates.append(result.rate)
    last = result
    FileHandle.standardError.write(Data("round \(round + 1): \(Int(result.rate)) sends/s, \(result.failures) failures\n".utf8))
}
let rssEnd = residentMiB()
await transport.close()
let median = rates.sorted()[rates.count / 2]
let latency = last!.latency
print(#"{"sends":\#(total),"streams":\#(streams),"rounds":\#(rates.map { Int($0) }),"medianSendsPerSecond":\#(Int(median)),"p50ms":\#(latency.percentile(0.5)),"p99ms":\#(latency.percentile(0.99)),"failures":\#(last!.failures),"rssStartMiB":\#(String(format: "%.1f", rssStart)),"rssEndMiB":\#(String(format: "%.1f", rssEnd))}"#)
