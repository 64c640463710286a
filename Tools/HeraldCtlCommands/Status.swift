import ArgumentParser
import HeraldControl
import Foundation
import JSONKit

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
            let event = answer["event"] ?? [:]
            let deliveries = event["deliveries"]?.arrayValue ?? []
            let table = TextTable(["DELIVERY", "STATUS", "ATTEMPTS", "PROVIDER", "AT", "REASON"], rows: deliveries.map { d in
                [d["deliveryId"]?.stringValue ?? "", d["status"]?.stringValue ?? "", d["updates"]?.intValue.map(String.init) ?? "",
                 d["providerCode"]?.stringValue ?? "-", d["at"]?.stringValue ?? "", d["reason"]?.stringValue ?? ""]
            })
            let resolved = event["resolved"]?.boolValue ?? false
            options.print(json: JSONValue.object(answer), text: "\(eventId): \(resolved ? "resolved" : "not resolved yet"), \(deliveries.count) deliveries\n" + (deliveries.isEmpty ? "" : table.text))
        }
    }
}
