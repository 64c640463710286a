import ArgumentParser
import HeraldControl
import Foundation

struct Queues: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Depth, rates and consumers of every Herald queue, the delay tiers included.",
        discussion: """
            Ready messages and consumers from AMQP, exact at this moment; unacknowledged messages \
            and rates (a second, in and out) from the broker's management API, a few seconds old, \
            shown as - where it does not answer.
            """)

    @OptionGroup var options: Options

    @Flag(help: "Only queues holding messages.") var nonEmpty = false

    func run() async throws {
        try await running(options) { () async throws(ControlError) in
            let inspector = QueueInspector(amqpURL: try options.broker(), managementURL: options.management())
            let (all, management) = try await inspector.statuses()
            let shown = nonEmpty ? all.filter { $0.ready + ($0.unacknowledged ?? 0) > 0 } : all
            func rate(_ value: Double?) -> String { value.map { String(format: "%.1f/s", $0) } ?? "-" }
            let table = TextTable(["QUEUE", "MESSAGES", "READY", "UNACKED", "CONSUMERS", "IN", "OUT"], rows: shown.map { q in
                q.exists
                    ? [q.name, q.messages.map(String.init) ?? "-", String(q.ready), q.unacknowledged.map(String.init) ?? "-",
                       String(q.consumers), rate(q.publishRate), rate(q.deliverRate)]
                    : [q.name, "missing", "", "", "", "", ""]
            })
            let json: [String: Any] = ["management": management, "queues": shown.map { q -> [String: Any] in
                var entry: [String: Any] = ["name": q.name, "exists": q.exists, "ready": q.ready, "consumers": q.consumers]
                if let m = q.messages { entry["messages"] = m }
                if let u = q.unacknowledged { entry["unacknowledged"] = u }
                if let r = q.publishRate { entry["publishRate"] = r }
                if let r = q.deliverRate { entry["deliverRate"] = r }
                return entry
            }]
            options.print(json: json, text: table.text + (management ? "" : "\n(the management API did not answer: no rates, no unacknowledged counts)"))
        }
    }
}
