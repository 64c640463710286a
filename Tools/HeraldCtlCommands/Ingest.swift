import ArgumentParser
import Crypto
import Foundation
import HeraldControl
import HeraldDomain
import HeraldModel
import HeraldSources
import JSONKit

/// `heraldctl ingest`: an app's ingest URLs, for upstreams that can be given a URL but send no
/// `Authorization` header (Verity's sponsor endpoint, Smart ID's push server address).
struct Ingest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ingest URLs: a per-app, per-source URL whose path carries its secret.",
        subcommands: [Create.self, List.self, Rotate.self, Revoke.self, New.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an ingest URL for a source and print it; the URL is shown this once.",
            discussion: "Needs an API key with the admin scope. Give the URL to the upstream (Verity's sponsor endpoint, Smart ID's server address).")
        @OptionGroup var options: Options
        @Option(help: "The URL's id, e.g. verity.") var id: String
        @Option(help: ArgumentHelp("The source it takes: \(SourceRegistry.herald.ingestSources.joined(separator: ", ")).")) var source: String
        @Option(name: .customLong("network"), help: "A sender network it takes requests from, as a CIDR (repeatable; default: any).") var networks: [String] = []

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                var body: [String: JSONValue] = ["id": .string(id), "source": .string(source)]
                if !networks.isEmpty { body["networks"] = .array(networks.map(JSONValue.string)) }
                let answer = try await options.gateway().call("POST", "/ingest-urls", body: JSONValue.object(body).json)
                try printMade(answer, options: options)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an ingest URL a second secret and print its new URL, shown this once; the old one works until revoked.")
        @OptionGroup var options: Options
        @Argument(help: "The URL's id.") var id: String

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                let answer = try await options.gateway().call("POST", "/ingest-urls/\(GatewayClient.pathSegment(id))/secrets")
                try printMade(answer, options: options)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an ingest URL, or with --secret one of its secrets (by fingerprint).")
        @OptionGroup var options: Options
        @Argument(help: "The URL's id.") var id: String
        @Option(help: "The fingerprint of the secret to revoke (8 hex digits, as list shows).") var secret: String?

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                let path = "/ingest-urls/\(GatewayClient.pathSegment(id))" + (secret.map { "/secrets/\(GatewayClient.pathSegment($0))" } ?? "")
                let answer = try await options.gateway().call("DELETE", path)
                options.print(json: JSONValue.object(answer), text: "revoked \(id)\(secret.map { " secret \($0)" } ?? "")")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the app's ingest URLs: ids, sources, networks, secrets' fingerprints (never a secret).")
        @OptionGroup var options: Options

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                let answer = try await options.gateway().call("GET", "/ingest-urls")
                let urls = answer["ingestURLs"]?.arrayValue ?? []
                var table = TextTable(["ID", "SOURCE", "NETWORKS", "SECRETS"])
                for url in urls {
                    let networks = (url["networks"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ",")
                    let secrets = (url["secrets"]?.arrayValue ?? []).map { "\($0["fingerprint"]?.stringValue ?? "?")(\($0["origin"]?.stringValue ?? "api"))" }
                    table.rows.append([url["id"]?.stringValue ?? "", url["source"]?.stringValue ?? "", networks.isEmpty ? "any" : networks, secrets.joined(separator: " ")])
                }
                options.print(json: JSONValue.object(answer), text: urls.isEmpty ? "no ingest URLs" : table.text)
            }
        }
    }

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new ingest secret, its path and the apps file line that holds its SHA-256 (no gateway asked).",
            discussion: "For an ingest URL kept in the apps file (GitOps): put the line under the app's ingestURLs; the gateway reads the changed file within seconds.")
        @Option(help: "The URL's id.") var id: String
        @Option(help: ArgumentHelp("The source it takes: \(SourceRegistry.herald.ingestSources.joined(separator: ", ")).")) var source: String
        @Option(name: .customLong("network"), help: "A sender network it takes requests from, as a CIDR (repeatable).") var networks: [String] = []
        @Flag(name: .long, help: "One JSON document: secret, path, sha256, line.") var json = false

        func run() async throws {
            guard let path = SourceRegistry.herald.ingestPath(source: source) else {
                FileHandle.standardError.write(Data("heraldctl: source \(source): use one of \(SourceRegistry.herald.ingestSources.joined(separator: ", "))\n".utf8))
                throw ExitCode(65)
            }
            let made = NewIngestSecret(id: id, source: source, networks: networks, sourcePath: path)
            if json {
                let document: JSONValue = ["secret": .string(made.secret), "path": .string(made.path), "sha256": .string(made.sha256), "line": .string(made.line)]
                print(document.text)
            } else {
                print("path: \(made.path)")
                print("line: \(made.line)")
            }
        }
    }
}

/// Prints the answer that made an ingest URL or secret: its whole URL under the gateway's address.
private func printMade(_ answer: [String: JSONValue], options: Options) throws(ControlError) {
    let path = answer["path"]?.stringValue ?? ""
    var shown = answer
    let url = try options.gateway().baseURL.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path
    shown["url"] = .string(url)
    options.print(json: JSONValue.object(shown), text: """
        url:         \(url)
        id:          \(answer["id"]?.stringValue ?? "")   source: \(answer["source"]?.stringValue ?? "")   fingerprint: \(answer["fingerprint"]?.stringValue ?? "")
        The URL carries its secret: it is shown this once. Give it to the upstream and keep it out of logs.
        """)
}
