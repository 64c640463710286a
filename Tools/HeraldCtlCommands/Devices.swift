import ArgumentParser
import Foundation
import HeraldControl
import HeraldDomain
import HeraldModel
import HeraldProviders
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
                var body: [String: Any] = ["platform": platform, "token": token, "os": os]
                if let user { body["userId"] = user }
                if !pushIds.isEmpty { body["pushIds"] = pushIds }
                if let locale { body["locale"] = locale }
                if let key {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(key.utf8)) else {
                        throw ControlError(.invalidInput, "--key is not JSON")
                    }
                    body["key"] = object
                }
                let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
                let answer = try await options.gateway().call("PUT", "/devices/\(GatewayClient.pathSegment(deviceId))", body: data)
                options.print(json: answer, text: "registered \(deviceId)")
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
                let device = answer["device"] as? [String: Any] ?? answer
                let text = device.keys.sorted().map { "\($0): \(describe(device[$0]!))" }.joined(separator: "\n")
                options.print(json: answer, text: text)
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
                options.print(json: answer, text: "removed \(deviceId)")
            }
        }
    }
}

/// A JSON value as one line of text.
func describe(_ value: Any) -> String {
    if let string = value as? String { return string }
    if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
        return String(decoding: data, as: UTF8.self)
    }
    return "\(value)"
}
