import Foundation
import HeraldDomain
import HeraldModel

/// The endpoints of preferences: a device's notification configuration (with its `ETag` and
/// `If-Match`), a user's and a channel's switches, the app's network switch; Preferences
/// keeps them, over RPC.
struct PreferencesController {
    let gateway: Gateway

    func getConfiguration(_ call: Gateway.Call) async throws -> Gateway.Reply {
        try await requireDevice(call)
        return try await configuration(.getDeviceConfiguration(app: call.app, deviceId: try call.parameter("deviceId")))
    }

    /// An `If-Match` value as the document allows it: 1 to 1,000 printable ASCII characters,
    /// neither first nor last a space.
    static func isEntityTagList(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard (1...1000).contains(bytes.count), bytes.first != 0x20, bytes.last != 0x20 else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// A device configuration command's answer, tagged with the configuration's `ETag`.
    private func configuration(_ command: PreferenceCommand) async throws -> Gateway.Reply {
        let answer = try await gateway.call(command, to: .preferences, PreferenceReply.self)
        var reply = try Gateway.json(200, answer)
        reply.entityTag = answer.configuration?.entityTag
        return reply
    }

    /// A configuration belongs to a registered device: 404 for one never registered or removed
    /// (and, for a client token, 403 for another user's device).
    private func requireDevice(_ call: Gateway.Call) async throws {
        _ = try await gateway.call(call.acting(.getDevice(app: call.app, deviceId: try call.parameter("deviceId"))), to: .registration, RegistrationReply.self)
    }

    func putConfiguration(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let configuration: NotificationConfiguration
        if let null = JSONFields.firstNull(in: .object(try call.fields().object), at: "", known: JSONFields.configurationFields) {
            throw GatewayError.invalid(null, "must not be null (leave it out instead)")
        }
        do { configuration = try HeraldJSON.decode(NotificationConfiguration.self, from: call.request.body) } catch let error as DecodingError {
            throw GatewayError(400, "Invalid request", HeraldJSON.describe(error))
        } catch { throw GatewayError(400, "Malformed JSON", "the body is not valid JSON") }
        if let ifMatch = call.request.ifMatch, !Self.isEntityTagList(ifMatch) {
            throw GatewayError.invalid("If-Match", "must be entity tags (\"…\", comma-separated) or *: 1 to 1,000 printable characters")
        }
        try await requireDevice(call)
        return try await self.configuration(.setDeviceConfiguration(
            app: call.app, deviceId: try call.parameter("deviceId"), configuration: configuration, ifMatch: call.request.ifMatch))
    }

    func getUserPreferences(_ call: Gateway.Call) async throws -> Gateway.Reply {
        try await gateway.preference(.getUser(app: call.app, userId: try call.parameter("userId")))
    }

    func putUserPreferences(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let body = try call.fields()
        let preferences = UserPreferences(enabled: try body.optionalBool("enabled") ?? true, mutedKinds: body.has("mutedKinds") ? try body.strings("mutedKinds", allowEmpty: true) : [])
        return try await gateway.preference(.setUser(app: call.app, userId: try call.parameter("userId"), preferences: preferences))
    }

    func getChannelPreferences(_ call: Gateway.Call) async throws -> Gateway.Reply {
        try await gateway.preference(.getChannel(app: call.app, userId: try call.parameter("userId"), channelId: try call.parameter("channelId")))
    }

    func putChannelPreferences(_ call: Gateway.Call) async throws -> Gateway.Reply {
        guard let enabled = try call.fields().optionalBool("enabled") else { throw GatewayError.invalid("enabled", "is required") }
        return try await gateway.preference(.setChannel(app: call.app, userId: try call.parameter("userId"), channelId: try call.parameter("channelId"), enabled: enabled))
    }

    func getSettings(_ call: Gateway.Call) async throws -> Gateway.Reply {
        try await gateway.preference(.getNetwork(app: call.app))
    }

    func putSettings(_ call: Gateway.Call) async throws -> Gateway.Reply {
        guard let enabled = try call.fields().optionalBool("enabled") else { throw GatewayError.invalid("enabled", "is required") }
        return try await gateway.preference(.setNetwork(app: call.app, enabled: enabled))
    }
}
