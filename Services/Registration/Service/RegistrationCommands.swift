import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import Messaging
import ServiceKit

/// Answers the gateway's registration commands from the store, validating ids and keys with
/// errors that name the field.
public struct RegistrationCommands: Sendable {
    let store: any RegistrationStore

    public init(store: any RegistrationStore) {
        self.store = store
    }

    /// The RPC handler.
    public func handle(_ request: ReceivedMessage) async throws -> RPCReply {
        let command = try request.command(RegistrationCommand.self, named: RegistrationCommand.contractName)
        return try .encoding(try await run(command), type: RegistrationReply.contractName)
    }

    /// How many of a device's latest outcomes `getDevice` shows.
    static let recentOutcomes = 20

    /// Runs `command`; with `identity` (a client token's, from `actingFor`), a registration
    /// checks in its own transaction that it takes over no other user's device or token.
    public func run(_ command: RegistrationCommand, actingFor identity: ClientIdentity? = nil) async throws -> RegistrationReply {
        try Self.check(command.app, "app")
        switch command {
        case .registerDevice(let app, let registration):
            try Self.validate(registration)
            return RegistrationReply(device: try await store.register(app: app, registration, actingFor: identity, now: Date()))
        case .getDevice(let app, let deviceId):
            try Self.check(deviceId, "deviceId")
            guard var device = try await store.device(app: app, deviceId: deviceId) else {
                throw CommandError(code: "device-not-found", detail: "app \(app) has no device \(deviceId)", status: 404)
            }
            let recent = try await store.recentOutcomes(app: app, deviceId: deviceId, limit: Self.recentOutcomes)
            device.lastOutcome = recent.first
            device.recentOutcomes = recent
            return RegistrationReply(device: device)
        case .unregisterDevice(let app, let deviceId, let userId, let token):
            try Self.check(deviceId, "deviceId")
            let unregistration = try await store.unregister(app: app, deviceId: deviceId, userId: userId, token: token)
            // Upstra's unregister is repeatable ("register and unregister as many times as you'd
            // like"): a device already gone is success with removed: false, as is one another
            // user holds ("no action is taken otherwise").
            return RegistrationReply(removed: unregistration.removed, detail: unregistration.detail)
        case .changeSourceState(let app, let change):
            return try await apply(change, app: app, actingFor: identity)
        case .eventStatus(let app, let eventId):
            try Self.check(eventId, "eventId")
            guard let status = try await store.eventStatus(app: app, eventId: eventId) else {
                throw CommandError(code: "event-not-found", detail: "app \(app) has no record of event \(eventId): not resolved yet, unknown, or older than the retention", status: 404)
            }
            return RegistrationReply(event: status)
        case .listEvents(let app, let query):
            try Self.checkPage(query.limit)
            return RegistrationReply(events: try await store.events(app: app, query))
        case .listDevices(let app, let query):
            try Self.checkPage(query.limit)
            if let userId = query.userId { try Self.check(userId, "userId") }
            return RegistrationReply(devices: try await store.devices(app: app, query))
        case .stats(let app, let since, let until):
            guard since < until, until.timeIntervalSince(since) <= ListLimits.longestStatsWindow else {
                throw CommandError(code: "invalid-window", detail: "window: from 1 minute to 24 hours")
            }
            return RegistrationReply(stats: try await store.stats(app: app, since: since, until: until))
        case .addIngestSecret(let app, let id, let source, let networks, let sha256):
            try Self.check(id, "id")
            // Which sources are served is the gateway's to say; a name is all Registration keeps.
            if let source, !Platform.isValidName(source) {
                throw CommandError(code: "invalid-source", detail: "source: the first segment of a source's path (smartid, events, ...)")
            }
            guard sha256.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil else {
                throw CommandError(code: "invalid-sha256", detail: "sha256: 64 lower-case hex digits")
            }
            var reply = RegistrationReply()
            reply.ingestURL = try await store.addIngestSecret(app: app, id: id, source: source, networks: networks, sha256: sha256, now: Date())
            return reply
        case .revokeIngestSecret(let app, let id, let fingerprint):
            try Self.check(id, "id")
            let revoked = try await store.revokeIngestSecret(app: app, id: id, fingerprint: fingerprint)
            guard revoked > 0 else {
                throw CommandError(code: "ingest-url-not-found", detail: "app \(app) has no ingest URL \(id)\(fingerprint.map { " with a secret \($0)" } ?? "") made at run time", status: 404)
            }
            return RegistrationReply(removed: true, detail: "revoked \(revoked) secret\(revoked == 1 ? "" : "s")")
        case .listIngestURLs(let app):
            var reply = RegistrationReply()
            reply.ingestURLs = try await store.ingestURLs(app: app)
            return reply
        case .ingestSecrets:
            var reply = RegistrationReply()
            reply.ingestSecrets = try await store.ingestSecrets()
            return reply
        case .actingFor(let acting, let command):
            guard identity == nil else { throw CommandError(code: "invalid-command", detail: "actingFor inside actingFor") }
            try await authorize(command, for: acting)
            return try await run(command, actingFor: acting)
        }
    }

    /// Refuses (403) a command a client token may not send: anything but its own user's
    /// devices, device list and address keys, and profile ids outside its `pushIds`. A device
    /// or address already registered must be the identity's too, so a token cannot take
    /// over another user's. Checked against the store just before the command runs.
    func authorize(_ command: RegistrationCommand, for identity: ClientIdentity) async throws {
        let forbidden = Self.forbidden
        switch command {
        // A registration's existing device and token are checked by the store, in its transaction.
        case .registerDevice(_, let registration):
            guard registration.userId == identity.userId else { throw forbidden("userId: a client token registers devices for its own user (sub) only") }
            guard identity.mayListen(to: registration.pushIds) else { throw forbidden("pushIds: the client token's pushIds claim does not hold every one of these profile ids") }
        case .getDevice(let app, let deviceId), .unregisterDevice(let app, let deviceId, _, _):
            try await requireOwned(app: app, deviceId: deviceId, by: identity)
        case .listDevices(_, let query):
            guard query.userId == identity.userId else { throw forbidden("a client token lists its own user's devices only") }
        case .changeSourceState(let app, let change):
            try await authorize(change, app: app, for: identity)
        case .eventStatus, .listEvents, .stats, .actingFor, .addIngestSecret, .revokeIngestSecret, .listIngestURLs, .ingestSecrets:
            throw forbidden("a client token cannot send this command: it is for server API keys")
        }
    }

    /// 403 with `detail`.
    static func forbidden(_ detail: String) -> CommandError { CommandError(code: "forbidden", detail: detail, status: 403) }

    /// A device that exists must be the identity's; one that does not is left to the command (404, or a new device).
    func requireOwned(app: String, deviceId: String, by identity: ClientIdentity) async throws {
        guard let device = try await store.device(app: app, deviceId: deviceId) else { return }
        guard identity.owns(device.registration) else { throw Self.forbidden("device \(deviceId) belongs to another user: a client token acts only for its own user (sub)") }
    }

    /// Ids, token and key of a registration; the key must be a usable P-256 key and auth secret.
    static func validate(_ registration: DeviceRegistration) throws {
        try check(registration.deviceId, "deviceId")
        guard TextLimits.fits(registration.token, maximum: TextLimits.long) else {
            throw CommandError(code: "invalid-token", detail: "token must be 1 to \(TextLimits.long) characters")
        }
        if let userId = registration.userId { try check(userId, "userId") }
        for (index, pushId) in registration.pushIds.enumerated() { try check(pushId, "pushIds[\(index)]") }
        if let key = registration.key {
            try check(key.keyId, "key.keyId")
            do {
                _ = try WebPushKey(p256dh: key.p256dh, auth: key.auth)
            } catch let error as HeraldCryptoError {
                throw CommandError(code: "invalid-key", detail: "key.\(error.description)", status: 422)
            }
        }
    }

    static func checkPage(_ limit: Int) throws {
        guard (1...ListLimits.largestPage).contains(limit) else {
            throw CommandError(code: "invalid-limit", detail: "limit must be 1 to \(ListLimits.largestPage)")
        }
    }

    static func check(_ value: String, _ field: String) throws {
        guard TextLimits.fits(value, maximum: TextLimits.identifier) else {
            throw CommandError(code: "invalid-\(field)", detail: "\(field) must be 1 to \(TextLimits.identifier) characters")
        }
    }
}
