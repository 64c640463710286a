import ArgumentParser
import HeraldControl
import Foundation

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What became of an event: each delivery's state, attempts, last provider answer and time.")

    @OptionGroup var options: Options

    @Argument(help: "The event id the gateway answered (e.g. smartid:…).")
    var eventId: String

    func run() async throws {
        try await running(options) { () async throws(ControlError) in
            let segment = GatewayClient.pathSegment(eventId)
            let answer = try await options.gateway().call("GET", "/events/\(segment)")
            let event = answer["event"] as? [String: Any] ?? [:]
            let deliveries = event["deliveries"] as? [[String: Any]] ?? []
            let table = TextTable(["DELIVERY", "STATUS", "ATTEMPTS", "PROVIDER", "AT", "REASON"], rows: deliveries.map { d in
                [d["deliveryId"] as? String ?? "", d["status"] as? String ?? "", (d["updates"] as? NSNumber)?.stringValue ?? "",
                 d["providerCode"] as? String ?? "-", d["at"] as? String ?? "", d["reason"] as? String ?? ""]
            })
            let resolved = event["resolved"] as? Bool ?? false
            options.print(json: answer, text: "\(eventId): \(resolved ? "resolved" : "not resolved yet"), \(deliveries.count) deliveries\n" + (deliveries.isEmpty ? "" : table.text))
        }
    }
}
