import ArgumentParser
import Foundation
import HeraldControl
import HeraldDomain
import HeraldModel
import HeraldProviders
import JSONKit
import ServiceKit

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register, show and remove devices.", subcommands: [Register.self, Show.self, Remove.self])

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register (or update) a device.")
        @OptionGroup var options: Options
        @Argument(help: "The device id.") var deviceId: String
        @Option(help: ArgumentHelp("The provider the token is for: \(ProviderRegistry.herald.devicePlatforms.map(\.rawValue).joined(separator: ", ")).")) var platform: String
        @Option(help: "The provider's registration token.") var token: String
        @Option(help: "ios, android, web or other (default: ios for an apns token, android otherwise).") var os: String?
        @Option(help: "The user the device belongs to.") var user: String?
        @Option(name: .customLong("push-id"), help: "A push id to address it by (repeatable).") var pushIds: [String] = []
        @Option(help: "The device's locale, e.g. en-GB.") var locale: String?
        @Option(help: "The encryption key as JSON, e.g. {\"kid\":…,\"p256dh\":…,\"auth\":…}.") var key: String?

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                let os = os ?? Platform(rawValue: platform).map { ProviderRegistry.herald.deviceOS(platform: $0) }?.rawValue ?? DeviceOS.android.rawValue
                var body: [String: JSONValue] = ["platform": .string(platform), "token": .string(token), "os": .string(os)]
                if let user { body["userId"] = .string(user) }
                if !pushIds.isEmpty { body["pushIds"] = .array(pushIds.map(JSONValue.string)) }
                if let locale { body["locale"] = .string(locale) }
                if let key {
                    guard let object = try? JSONValue(json: Data(key.utf8)) else {
                        throw ControlError(.invalidInput, "--key is not JSON")
                    }
                    body["key"] = object
                }
                let answer = try await options.gateway().call("PUT", "/devices/\(GatewayClient.pathSegment(deviceId))", body: JSONValue.object(body).json)
                options.print(json: JSONValue.object(answer), text: "registered \(deviceId)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a registered device.")
        @OptionGroup var options: Options
        @Argument(help: "The device id.") var deviceId: String

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                let answer = try await options.gateway().call("GET", "/devices/\(GatewayClient.pathSegment(deviceId))")
                let device = answer["device"]?.objectValue ?? answer
                let text = device.keys.sorted().map { "\($0): \(describe(device[$0]!))" }.joined(separator: "\n")
                options.print(json: JSONValue.object(answer), text: text)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unregister a device (with --user, only if it is that user's).")
        @OptionGroup var options: Options
        @Argument(help: "The device id.") var deviceId: String
        @Option(help: "Remove it only if it belongs to this user.") var user: String?

        func run() async throws {
            try await running(options) { () async throws(ControlError) in
                let query = user.map { "?userId=\(GatewayClient.pathSegment($0))" } ?? ""
                let answer = try await options.gateway().call("DELETE", "/devices/\(GatewayClient.pathSegment(deviceId))\(query)")
                options.print(json: JSONValue.object(answer), text: "removed \(deviceId)")
            }
        }
    }
}

/// A JSON value as one line of text.
func describe(_ value: Any) -> String {
    guard let json = try? JSONValue(any: value) else { return "\(value)" }
    return json.stringValue ?? json.text
}
