import ArgumentParser
import HeraldControl
import Foundation

/// `heraldctl`: operate a Herald deployment from a terminal or a script. The `heraldctl`
/// executable and the image's multi-call `herald` run it.
public struct HeraldCtlCommand: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "heraldctl",
        abstract: "Operate Herald: publish contracts, send sample events, follow deliveries, inspect queues, replay dead letters.",
        discussion: """
            The broker, the gateway and the API key come from flags or from HERALD_AMQP_URL \
            (with HERALD_AMQP_PASSWORD_FILE), HERALD_GATEWAY_URL, HERALD_API_KEY and HERALD_APP; \
            the management API from HERALD_MANAGEMENT_URL (default http://<broker host>:15672).
            Exit codes: 0 done, 1 the broker or gateway refused or failed it, 2 not found, \
            3 not confirmed, 64 bad usage, 65 invalid input, 69 the broker or gateway unreachable.
            --json on every command prints one JSON document for scripts.
            """,
        subcommands: [Publish.self, Send.self, Status.self, Devices.self, Queues.self, DeadLetters.self, Keys.self, Ingest.self, ClientToken.self])

    /// Parses `arguments` (the process's own when nil) and runs the command, exiting with its
    /// code. `AsyncParsableCommand.main()` called from a `main.swift` picks the synchronous
    /// overload, which refuses an asynchronous command; this is what `@main` would run.
    public static func run(arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            exit()
        } catch {
            exit(withError: error)
        }
    }
}
