import ArgumentParser
import HeraldControl
import Foundation

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publish a Herald contract straight onto the broker, with publisher confirms.",
        discussion: """
            The contract (event, delivery, dispatch, outcome, token-revoked, or its full name such as \
            herald.event.v1) is read as the consuming service reads it; an invalid one is refused \
            with the field and the reason, and nothing is sent. By default it goes where Herald \
            publishes it (an event to herald.events with <source>.<kind>, a delivery to \
            herald.deliveries with resolved, a dispatch request to herald.dispatch with its \
            platform, an outcome to herald.outcomes, a revocation to herald.control). With --count, \
            each copy's id ends in -1, -2, … so that every copy is a message of its own.
            """)

    @OptionGroup var options: Options

    @Argument(help: "The contract: event, delivery, dispatch, outcome or token-revoked.")
    var contract: String

    @Option(help: "Read the contract's JSON from this file (- for standard input).")
    var file: String?

    @Option(name: .customLong("json-body"), help: "The contract's JSON itself.")
    var body: String?

    @Option(help: "Publish to this exchange instead (with --routing-key).")
    var exchange: String?

    @Option(help: "The routing key to publish with (with --exchange).")
    var routingKey: String?

    @Option(help: "Publish straight to this queue (the default exchange).")
    var queue: String?

    @Option(help: "How many copies to publish.")
    var count = 1

    @Option(help: "At most this many messages a second (default: as fast as the broker confirms).")
    var rate: Double?

    @Option(help: "A per-message expiration in milliseconds (AMQP expiration).")
    var expiration: Int?

    func validate() throws {
        if (file == nil) == (body == nil) { throw ValidationError("give the contract with exactly one of --file and --json-body") }
        if queue != nil, exchange != nil || routingKey != nil { throw ValidationError("--queue publishes to the default exchange; leave out --exchange and --routing-key") }
        if (exchange == nil) != (routingKey == nil) { throw ValidationError("--exchange and --routing-key go together") }
        if count < 1 { throw ValidationError("--count must be at least 1") }
        if let rate, !(rate > 0) { throw ValidationError("--rate must be above 0") }
        if let expiration, expiration < 0 { throw ValidationError("--expiration must be 0 or more milliseconds") }
    }

    func run() async throws {
        try await running(options) { () async throws(ControlError) in
            let kind = try ContractKind(named: contract)
            let prepared = try kind.prepare(try readBody())
            let route: (exchange: String, routingKey: String) =
                if let queue { ("", queue) } else if let exchange, let routingKey { (exchange, routingKey) } else { prepared.route }
            let messages = try (1...count).map { (n: Int) throws(ControlError) in
                try prepared.message(exchange: route.exchange, routingKey: route.routingKey, copy: count > 1 ? n : nil, expiration: expiration)
            }
            let progress = Progress(total: count, enabled: !options.json && isatty(STDERR_FILENO) != 0)
            let published = try await ContractPublisher(url: try options.broker()).publish(messages, rate: rate) { done in
                progress.update(done)
            }
            progress.finish()
            options.print(json: [
                "contract": prepared.contractName, "messageId": prepared.messageId, "exchange": route.exchange,
                "routingKey": route.routingKey, "published": published.count, "seconds": published.seconds,
            ], text: "published \(published.count) × \(prepared.contractName) \(prepared.messageId) to exchange \"\(route.exchange)\" with routing key \"\(route.routingKey)\", confirmed in \(String(format: "%.2f", published.seconds)) s")
        }
    }

    private func readBody() throws(ControlError) -> Data {
        if let body { return Data(body.utf8) }
        guard let file else { return Data() }
        if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ControlError(.invalidInput, "cannot read \(file)")
        }
        return data
    }
}
