import ArgumentParser
import HeraldControl
import Foundation
import JSONKit
import Messaging

/// Where Herald is and how to print: the options every command takes, each with its
/// environment variable as the fallback.
struct Options: ParsableArguments {
    @Flag(help: "Print one JSON document instead of text.")
    var json = false

    @Option(help: "The broker (default $HERALD_AMQP_URL, else amqp://guest:guest@localhost:5672/).")
    var amqpURL: String?

    @Option(help: "The management API (default $HERALD_MANAGEMENT_URL, else http://<broker host>:15672).")
    var managementURL: String?

    @Option(help: "The gateway's public API (default $HERALD_GATEWAY_URL, else http://localhost:8080).")
    var gatewayURL: String?

    @Option(help: "The API key (default $HERALD_API_KEY).")
    var apiKey: String?

    @Option(help: "The app (default $HERALD_APP).")
    var app: String?

    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    func broker() throws(ControlError) -> AMQPURL {
        try ControlBroker.url(flag: amqpURL)
    }

    func management() -> String? {
        managementURL ?? Self.environment["HERALD_MANAGEMENT_URL"]
    }

    func gateway() throws(ControlError) -> GatewayClient {
        let url = gatewayURL ?? Self.environment["HERALD_GATEWAY_URL"] ?? "http://localhost:8080"
        guard let key = apiKey ?? Self.environment["HERALD_API_KEY"], !key.isEmpty else {
            throw ControlError(.invalidInput, "no API key: give --api-key or set HERALD_API_KEY")
        }
        guard let app = app ?? Self.environment["HERALD_APP"], !app.isEmpty else {
            throw ControlError(.invalidInput, "no app: give --app or set HERALD_APP")
        }
        return GatewayClient(baseURL: url, app: app, apiKey: key)
    }

    /// Prints `value` as JSON (with --json) or `text`.
    func print(json value: Any, text: @autoclosure () -> String) {
        if json {
            Swift.print(((try? JSONValue(any: value)) ?? [:]).prettyText)
        } else {
            Swift.print(text())
        }
    }
}

/// Runs a command's body, turning a `ControlError` into its message on stderr and its exit code.
func running(_ options: Options, _ body: () async throws(ControlError) -> Void) async throws {
    do {
        try await body()
    } catch {
        if options.json {
            let problem: JSONValue = ["error": .string(error.reason.rawValue), "message": .string(error.message), "exitCode": .int(Int(error.exitCode))]
            FileHandle.standardError.write(problem.json + Data("\n".utf8))
        } else {
            FileHandle.standardError.write(Data("heraldctl: \(error.message)\n".utf8))
        }
        throw ExitCode(error.exitCode)
    }
}
