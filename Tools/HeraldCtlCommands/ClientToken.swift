import ArgumentParser
import Foundation
import HeraldControl
import HeraldDomain
import JSONKit

/// `heraldctl client-token`: a device-side client token for trying an app's calls by hand.
struct ClientToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-token",
        abstract: "Print a client token for one user of an app, signed with the app's clientTokens secret.",
        discussion: """
            For testing: in production the tenant's backend mints each token (docs/api.md). The \
            token is HS256 with the app's hmacSecretFile, or ES256 with --es256-key (the private \
            half of the app's publicKeyFile). Use it as Authorization: Bearer <token>.
            """)

    @Option(name: .long, help: "The apps file (default: $HERALD_CONFIG).")
    var config: String?

    @Option(name: .long, help: "The app the token is for (its aud).")
    var app: String

    @Option(name: .long, help: "The user the token acts for (its sub).")
    var user: String

    @Option(name: .customLong("push-id"), help: "A Smart ID profile id the device may register (repeat for several).")
    var pushIds: [String] = []

    @Option(name: .long, help: "Seconds the token lives, at most the app's maxLifetime.")
    var ttl: Int = 3600

    @Option(name: .customLong("es256-key"), help: "A P-256 private key's PEM file: sign ES256 instead of HS256.")
    var es256Key: String?

    @Flag(name: .long, help: "One JSON document: token, expiresAt.")
    var json = false

    func run() async throws {
        do {
            guard let path = config ?? ProcessInfo.processInfo.environment["HERALD_CONFIG"] else {
                throw ControlError(.invalidInput, "--config: the apps file (or set HERALD_CONFIG)")
            }
            let apps: AppsConfiguration
            do { apps = try AppsConfiguration.load(path: path) } catch { throw ControlError(.invalidInput, "\(error)") }
            var pem: String?
            if let es256Key {
                guard let data = FileManager.default.contents(atPath: es256Key) else { throw ControlError(.invalidInput, "--es256-key: cannot read \(es256Key)") }
                pem = String(decoding: data, as: UTF8.self)
            }
            let token = try NewClientToken(apps: apps, app: app, user: user, pushIds: pushIds, ttl: ttl, privateKeyPEM: pem)
            if json {
                let document: JSONValue = ["token": .string(token.token), "expiresAt": .string(ISO8601DateFormatter().string(from: token.expiresAt))]
                print(document.text)
            } else {
                print(token.token)
            }
        } catch let error as ControlError {
            FileHandle.standardError.write(Data("heraldctl: \(error.message)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }
}
