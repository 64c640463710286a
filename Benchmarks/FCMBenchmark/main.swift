// herald-fcm-bench: a benchmark, not a test.
//
//   herald-fcm-bench <endpoint> <service-account.json> <ca.pem> [sends=1000000] [streams=100]
//
// One process sends to FCM (the sandbox, started by scripts/bench-fcm) the way herald-fcm
// does: FCMClient over one HTTPTransport, one HTTP/2 connection with `streams` concurrent
// streams, OAuth included. Reports sends/s, p50/p99 send latency, and resident memory after
// 100,000 and after all sends.
import BenchmarkSupport
import DispatchKit
import FCM
import Foundation
import HeraldModel
import HTTPTransport
import Synchronization

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: herald-fcm-bench <endpoint> <service-account.json> <ca.pem> [sends] [streams]\n".utf8))
    exit(64)
}
let endpoint = arguments[0]
let account = try FCMServiceAccount.load(path: arguments[1])
let total = arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000
let streams = arguments.count > 4 ? Int(arguments[4]) ?? 100 : 100

let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "fcm", maxConcurrentStreams: streams, maxConnectionsPerHost: 1, caFile: arguments[2]))
let client = FCMClient(app: "bench", account: account, endpoint: endpoint, transport: transport)

let issued = Atomic<Int>(0)
let failures = Atomic<Int>(0)
let rssAt100k = Mutex<Double?>(nil)
// Warm up: the token and the connection.
_ = await client.send(DispatchRequest(deliveryId: "warm", eventId: "warm", app: "bench", kind: "bench", platform: .fcm, deviceId: "d", token: "warm-up", os: .android, data: ["herald": "1"]))
let rssStart = residentMiB()
let clock = ContinuousClock()
let started = clock.now
let histogram = await withTaskGroup(of: LatencyHistogram.self) { group in
    for worker in 0..<streams {
        group.addTask {
            var local = LatencyHistogram()
            while true {
                let n = issued.wrappingAdd(1, ordering: .relaxed).oldValue
                guard n < total else { break }
                let request = DispatchRequest(
                    deliveryId: "b\(n)", eventId: "e\(n)", app: "bench", kind: "bench", platform: .fcm, deviceId: "d\(worker)",
                    token: "bench-\(n)", os: .android, data: ["herald": "1", "event": "e\(n)", "kind": "bench"])
                let sent = clock.now
                let result = await client.send(request)
                local.record(clock.now - sent)
                if case .delivered = result {} else { failures.wrappingAdd(1, ordering: .relaxed) }
                if n == 99_999 { rssAt100k.withLock { $0 = residentMiB() } }
            }
            return local
        }
    }
    var merged = LatencyHistogram()
    for await local in group { merged.merge(local) }
    return merged
}
let elapsed = StageThroughput.seconds(clock.now - started)
let rssEnd = residentMiB()
let at100k = rssAt100k.withLock { $0 } ?? rssEnd
await transport.close()
print(#"{"sends":\#(total),"streams":\#(streams),"seconds":\#(String(format: "%.1f", elapsed)),"sendsPerSecond":\#(Int(Double(total) / elapsed)),"p50ms":\#(histogram.percentile(0.5)),"p99ms":\#(histogram.percentile(0.99)),"failures":\#(failures.load(ordering: .relaxed)),"rssStartMiB":\#(String(format: "%.1f", rssStart)),"rssAfter100kMiB":\#(String(format: "%.1f", at100k)),"rssAfterAllMiB":\#(String(format: "%.1f", rssEnd)),"growthPercent":\#(String(format: "%.1f", 100 * (rssEnd - at100k) / at100k))}"#)
