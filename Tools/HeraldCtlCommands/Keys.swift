import ArgumentParser
import HeraldControl
import HeraldDomain
import Foundation
import JSONKit

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "API keys for the apps file.",
        subcommands: [New.self])

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new random API key and the apps file line that holds its SHA-256.",
            discussion: """
                Give the key to its user; put the line under the app's apiKeys. The gateway reads \
                the changed file within seconds, without a restart.
                """)

        @Option(name: .long, help: "The key's id in the apps file and the logs.")
        var id: String

        @Option(name: .long, parsing: .upToNextOption, help: "Its scopes: events, devices, admin, console (default: events).")
        var scopes: [String] = []

        @Flag(name: .long, help: "One JSON document: key, id, sha256, scopes, line.")
        var json = false

        func run() async throws {
            do {
                var parsed: [AppConfiguration.Scope] = []
                for name in scopes.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    guard let scope = AppConfiguration.Scope(rawValue: name) else {
                        throw ControlError(.invalidInput, "scope \(name): use events, devices, admin or console")
                    }
                    parsed.append(scope)
                }
                let key = try NewAPIKey(id: id, scopes: parsed)
                if json {
                    let document: JSONValue = [
                        "key": .string(key.key), "id": .string(key.id), "sha256": .string(key.sha256),
                        "scopes": .array(key.scopes.map { .string($0.rawValue) }), "line": .string(key.line),
                    ]
                    print(document.text)
                } else {
                    print("key:  \(key.key)")
                    print("line: \(key.line)")
                }
            } catch let error as ControlError {
                FileHandle.standardError.write(Data("heraldctl: \(error.message)\n".utf8))
                throw ExitCode(error.exitCode)
            }
        }
    }
}
