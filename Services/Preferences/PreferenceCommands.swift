import HeraldDomain
import HeraldModel
import Messaging
import ServiceKit

/// Answers the gateway's preference commands (`PreferenceCommand`) from the store: each
/// command returns the state after it, or a `CommandError` naming the bad field.
public struct PreferenceCommands: Sendable {
    let store: PreferenceStore

    public init(store: PreferenceStore) {
        self.store = store
    }

    /// The RPC handler: decodes the command, runs it, encodes the reply.
    public func handle(_ request: ReceivedMessage) async throws -> RPCReply {
        let command = try request.command(PreferenceCommand.self, named: PreferenceCommand.contractName)
        return try .encoding(try await run(command), type: PreferenceReply.contractName)
    }

    /// Runs one command.
    public func run(_ command: PreferenceCommand) async throws -> PreferenceReply {
        try Self.validate(command)
        switch command {
        case .getNetwork(let app):
            return PreferenceReply(networkEnabled: store.network(app: app))
        case .setNetwork(let app, let enabled):
            try await store.setNetwork(app: app, enabled: enabled)
            return PreferenceReply(networkEnabled: enabled)
        case .getUser(let app, let userId):
            return PreferenceReply(user: store.user(app: app, userId: userId))
        case .setUser(let app, let userId, let preferences):
            try await store.setUser(app: app, userId: userId, preferences)
            return PreferenceReply(user: store.user(app: app, userId: userId))
        case .getChannel(let app, let userId, let channelId):
            return PreferenceReply(channelEnabled: store.channel(app: app, userId: userId, channelId: channelId))
        case .setChannel(let app, let userId, let channelId, let enabled):
            try await store.setChannel(app: app, userId: userId, channelId: channelId, enabled: enabled)
            return PreferenceReply(channelEnabled: enabled)
        case .getDeviceConfiguration(let app, let deviceId):
            return PreferenceReply(configuration: store.configuration(app: app, deviceId: deviceId))
        case .setDeviceConfiguration(let app, let deviceId, let configuration, let ifMatch):
            return PreferenceReply(configuration: try await store.updateConfiguration(app: app, deviceId: deviceId) { stored in
                // Checked where the write happens, so two writers with the same tag cannot both win.
                if let ifMatch, !stored.matches(ifMatch: ifMatch) {
                    throw CommandError(
                        code: "precondition-failed", detail: "the configuration changed since \(ifMatch) was read; its tag is now \(stored.entityTag)", status: 412)
                }
                stored = configuration
            })
        case .initializeService(let app, let deviceId, let service):
            return PreferenceReply(configuration: try await store.updateConfiguration(app: app, deviceId: deviceId) { $0.initialize(service: service) })
        case .setRule(let app, let deviceId, let service, let rule, let enabled):
            return PreferenceReply(configuration: try await store.updateConfiguration(app: app, deviceId: deviceId) {
                $0.set(service: service, rule: rule, enabled: enabled)
            })
        case .isEnabled(let app, let deviceId, let service, let rule):
            let configuration = store.configuration(app: app, deviceId: deviceId)
            return PreferenceReply(enabled: configuration.isEnabled(service: service, context: [rule.field.rawValue: rule.value]))
        }
    }

    /// Ids must be present and reasonable; the message names the field.
    static func validate(_ command: PreferenceCommand) throws {
        func check(_ value: String, _ field: String) throws {
            guard TextLimits.fits(value, maximum: TextLimits.identifier) else {
                throw CommandError(code: "invalid-\(field)", detail: "\(field) must be 1 to \(TextLimits.identifier) characters")
            }
        }
        try check(command.app, "app")
        switch command {
        case .getNetwork, .setNetwork:
            break
        case .getUser(_, let userId), .setUser(_, let userId, _):
            try check(userId, "userId")
        case .getChannel(_, let userId, let channelId), .setChannel(_, let userId, let channelId, _):
            try check(userId, "userId")
            try check(channelId, "channelId")
        case .getDeviceConfiguration(_, let deviceId):
            try check(deviceId, "deviceId")
        case .setDeviceConfiguration(_, let deviceId, let configuration, _):
            try check(deviceId, "deviceId")
            for (index, entry) in configuration.entries.enumerated() {
                try check(entry.service, "entries[\(index)].service")
                if let rule = entry.rule { try check(rule.value, "entries[\(index)].rule.value") }
            }
        case .initializeService(_, let deviceId, let service):
            try check(deviceId, "deviceId")
            try check(service, "service")
        case .setRule(_, let deviceId, let service, let rule, _), .isEnabled(_, let deviceId, let service, let rule):
            try check(deviceId, "deviceId")
            try check(service, "service")
            try check(rule.value, "rule.value")
        }
    }
}
