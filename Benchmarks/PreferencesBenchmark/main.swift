// herald-preferences-bench: a benchmark, not a test.
//
//   herald-preferences-bench decide [seconds-per-measure=2] [rounds=5]
//       the filter logic alone on one thread (one core): decisions/s over a store of 20,000
//       users, 20,000 channel toggles and 5,000 device configurations; from the in-memory
//       view directly, and through the store (its lock included).
//   herald-preferences-bench stage [deliveries=20000]
//       the filter stage on the broker: N deliveries queued, then consumed, decided and
//       published with confirms; reports deliveries/s until the last one arrives.
import BenchmarkSupport
import Foundation
import HeraldDomain
import HeraldModel
import Preferences
import ServiceKit

let arguments = CommandLine.arguments.dropFirst()
let mode = arguments.first ?? "decide"
let users = 20_000

/// A mix of deliveries: chat messages in several channels, some muted kinds, Sudo email.
func delivery(_ n: Int) -> Delivery {
    let user = "u\(n % users)"
    let sudo = n % 3 == 0
    return Delivery(
        eventId: "bench-\(n)", app: "bench", source: sudo ? .sudoEmail : .upstra, kind: sudo ? "email.received" : (n % 5 == 0 ? "member.joined" : "message.created"),
        occurredAt: Date(),
        context: sudo ? ["sudoId": "s\(n % 7)", "emailAddressId": "a\(n % 11)"] : ["channelId": "c\(n % 13)"],
        device: DeviceTarget(id: "d\(n % 5_000)", platform: .fcm, token: "t\(n)", os: .android, userId: user))
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-preferences-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }
let store = try await PreferenceStore(directory: directory)
for n in 0..<users {
    try await store.setUser(app: "bench", userId: "u\(n)", UserPreferences(enabled: n % 10 != 0, mutedKinds: n % 4 == 0 ? ["member.joined"] : []))
    try await store.setChannel(app: "bench", userId: "u\(n)", channelId: "c\(n % 13)", enabled: n % 2 == 0)
}
for n in 0..<5_000 {
    _ = try await store.updateConfiguration(app: "bench", deviceId: "d\(n)") {
        $0.initialize(service: "sudo-email")
        $0.set(service: "sudo-email", rule: .init(field: .sudoId, value: "s\(n % 7)"), enabled: false)
        $0.set(service: "sudo-email", rule: .init(field: .emailAddressId, value: "a\(n % 11)"), enabled: n % 2 == 0)
    }
}

switch mode {
case "decide":
    let seconds = Double(arguments.dropFirst().first ?? "2") ?? 2
    let rounds = Int(arguments.dropFirst(2).first ?? "5") ?? 5
    let deliveries = (0..<10_000).map(delivery)
    let view = store.snapshot
    var index = 0
    var allowed = 0
    var results: [String: [Double]] = [:]
    for _ in 0..<rounds {
        results["decisions_per_s_view", default: []].append(OperationRate.measure(seconds: seconds) {
            if view.decide(deliveries[index], critical: false) == .allow { allowed += 1 }
            index = (index + 1) % deliveries.count
        })
        results["decisions_per_s_store", default: []].append(OperationRate.measure(seconds: seconds) {
            if store.decide(deliveries[index], critical: false) == .allow { allowed += 1 }
            index = (index + 1) % deliveries.count
        })
    }
    for name in results.keys.sorted() { OperationRate.report(name, results[name]!) }
    let share = Double(deliveries.filter { view.decide($0, critical: false) == .allow }.count) / Double(deliveries.count)
    print(#"{"allowedShare":\#(String(format: "%.2f", share)),"checksum":\#(allowed % 7)}"#)

case "stage":
    let count = Int(arguments.dropFirst().first ?? "20000") ?? 20000
    // A store where everything is allowed, so every delivery reaches the output queue and is
    // counted (filtered ones would go to outcomes); the decision's cost is measured above.
    let openStore = try await PreferenceStore(directory: directory.appendingPathComponent("open"))
    let elapsed = try await StageThroughput.measure(
        label: "preferences", count: count, outputKey: HeraldTopology.RoutingKey.allowed,
        input: { delivery($0) },
        stage: { runtime, routes in
            PreferencesStage.make(runtime: runtime, apps: AppsConfiguration(), store: openStore, routes: routes, prefetch: 512)
        })
    let seconds = StageThroughput.seconds(elapsed)
    print(#"{"measure":"stage_deliveries_per_s","deliveries":\#(count),"seconds":\#(String(format: "%.2f", seconds)),"perSecond":\#(Int(Double(count) / seconds))}"#)

default:
    FileHandle.standardError.write(Data("usage: herald-preferences-bench decide [seconds] [rounds] | stage [deliveries]\n".utf8))
    exit(64)
}
