import Foundation
import HeraldDomain
import HeraldModel

/// The endpoints that register and show devices (a device by its id, Smart ID's profiles,
/// Evernym's sponsees, Sudo's address keys): each request validated here, the change made by
/// Registration over RPC, every token in an answer masked.
struct DevicesController {
    let gateway: Gateway

    func listDevices(_ call: Gateway.Call) async throws -> Gateway.Reply {
        try await devices(.listDevices(app: call.app, query: try ListQuery(query: call.request.query).devices(platforms: gateway.providers.devicePlatforms)))
    }

    func listUserDevices(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let query = try ListQuery(query: call.request.query).devices(userId: try call.parameter("userId"), platforms: gateway.providers.devicePlatforms)
        return try await devices(call.acting(.listDevices(app: call.app, query: query)))
    }

    /// A page of devices, their tokens masked.
    private func devices(_ command: RegistrationCommand) async throws -> Gateway.Reply {
        var page = try await gateway.call(command, to: .registration, RegistrationReply.self).devices ?? DevicePage(devices: [], nextCursor: nil)
        page.devices = page.devices.map(\.masked)
        return try Gateway.json(200, page)
    }

    func smartIDDevices(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let body = try call.fields()
        // The profiles of profileID (one or a list) and profileIDs together, each trimmed of
        // surrounding white space, as a push's pushId is.
        var profiles: [String] = []
        if body.has("profileID") {
            profiles += body.object["profileID"] is [Any] ? try body.strings("profileID") : [try SourceEventIds.trimmedId(body, "profileID")]
        }
        if body.has("profileIDs") { profiles += try body.strings("profileIDs") }
        profiles = try Self.trimmed(profiles, field: "profileID")
        guard !profiles.isEmpty else { throw GatewayError.invalid("profileID", "is required (or profileIDs)") }
        let os: DeviceOS = try body.oneOf("OS", ["iOS", "Android"]) == "iOS" ? .ios : .android
        // "For iOS: device token; For Android: device registration token": an APNs token
        // when the app has APNs settings, else FCM's. The token is also the device's id.
        let platform = try unnamedTokenPlatform(os: os, app: call.app, field: "deviceID")
        let token = try body.string("deviceID", maxLength: TextLimits.identifier)
        try refuseUnservedToken(token, os: os, platform: platform, app: call.app, field: "deviceID")
        if let problem = gateway.providers.tokenProblem(token, platform: platform, app: gateway.apps.apps[call.app]) { throw GatewayError.refused("deviceID", problem) }
        return try await gateway.registry(call.acting(.registerSmartIDDevice(app: call.app, token: token, os: os, platform: platform, profileIds: profiles)), status: 200)
    }

    /// Ids without the white space around them (`SourceEventIds.trimmedId` each).
    static func trimmed(_ ids: [String], field: String) throws(GatewayError) -> [String] {
        var result: [String] = []
        for (index, id) in ids.enumerated() { result.append(try SourceEventIds.trimmedId(id, field: "\(field)[\(index)]")) }
        return result
    }

    /// A token handed over without a platform that another provider recognises by its form
    /// (an iOS device's APNs token where the app has no APNs account) would go to the
    /// provider of unnamed tokens, which refuses it, and the device would be deleted at its
    /// first push. Refused here, naming what is missing.
    private func refuseUnservedToken(_ token: String, os: DeviceOS, platform: Platform, app: String, field: String) throws(GatewayError) {
        guard let owner = gateway.providers.otherRecognizer(of: token, than: platform),
              owner.deviceOS == nil || owner.deviceOS == os,
              !gateway.providers.serves(owner.platform, app: gateway.apps.apps[app]) else { return }
        let name = owner.displayName
        throw GatewayError(422, "Unprocessable Content", "\(field): this is an \(name) device token, but app \(app) has no \(name) account (an \(owner.platform) section in the apps file); register the device's token of a provider the app has, or add the app's \(name) settings", field: field)
    }

    /// The platform of a token handed over without one; 400 naming `field` when no provider
    /// here takes such a token.
    private func unnamedTokenPlatform(os: DeviceOS, app: String, field: String) throws(GatewayError) -> Platform {
        guard let platform = gateway.providers.tokenPlatform(os: os, app: gateway.apps.apps[app]) else {
            throw GatewayError.invalid(field, "names no platform, and no provider here takes a token without one; name the platform")
        }
        return platform
    }

    func evernymSponsee(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let body = try call.fields()
        // The SDK's com-method object names its sponsee too; the path's is the one.
        let id = try call.parameter("id")
        if body.has("id"), try body.string("id", maxLength: 256) != id { throw GatewayError.invalid("id", "must match the path's sponsee id") }
        let type = try body.int("type")
        guard type == 3 || type == 4 else { throw GatewayError.invalid("type", "must be 3 or 4") }
        let value = try body.string("value")
        // Both types are pushed (3: Verity forwards to Herald, the sponsor, which pushes; 4:
        // Verity pushes itself, and a forward that reaches Herald anyway is pushed too): the
        // value must be a com method Herald can push to, unless the app forwards everything
        // to its own server (webhook mode), which gets the value as it is.
        let app = gateway.apps.apps[call.app]
        if app?.delivery.mode != .webhook, gateway.providers.comMethodToken(value, app: app) == nil {
            let accepted = gateway.providers.devicePlatforms.filter { gateway.providers.serves($0, app: app) }.map { "\($0.rawValue.uppercased()):<token>" }
            throw GatewayError.invalid("value", "must be a com method Herald can push to for this app (\(accepted.isEmpty ? "none: the app has no provider account" : accepted.joined(separator: ", "))); forwarding to the sponsor's own server is the app's webhook delivery mode")
        }
        return try await gateway.registry(.setSponsee(app: call.app, sponseeId: id, type: type, value: value), status: 200)
    }

    func emailAddressKey(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let body = try call.fields()
        // A client token's key is its user's: the owner is the token's `sub` unless the body names one.
        return try await gateway.registry(call.acting(.setAddressKey(
            app: call.app, emailAddressId: try call.parameter("id"), keyId: try body.string("keyId", maxLength: 256),
            publicKey: try body.string("publicKey", maxLength: 16 * 1024), ownerUserId: try body.optionalString("owner", maxLength: 256) ?? call.caller.client?.userId,
            deviceId: try body.optionalString("deviceId", maxLength: TextLimits.identifier))), status: 200)
    }

    func putDevice(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let body = try call.fields()
        // A device is reached through a provider it registered with; webhooks are the app's
        // (its delivery mode), not a device's.
        let named = body.has("platform")
            ? Platform(rawValue: try body.oneOf("platform", gateway.providers.devicePlatforms.map(\.rawValue)))!
            : nil
        // A browser's subscription runs on the web; every other device names its system.
        let provider = named.flatMap { gateway.providers[$0] }
        let os = provider?.registrationShape == .subscription && !body.has("os")
            ? provider?.deviceOS ?? .web
            : DeviceOS(rawValue: try body.oneOf("os", DeviceOS.allCases.map(\.rawValue)))!
        // Without a platform (an SDK that hands over the system's token), the system's own
        // provider where the app has its account, else the one that takes unnamed tokens.
        let platform = try named ?? unnamedTokenPlatform(os: os, app: call.app, field: "platform")
        // What the device hands over is what that provider takes.
        let shape = gateway.providers[platform]?.registrationShape ?? .token
        let (token, key, field) = try handedOver(body, platform: platform, shape: shape)
        if named == nil { try refuseUnservedToken(token, os: os, platform: platform, app: call.app, field: field) }
        if let problem = gateway.providers.tokenProblem(token, platform: platform, app: gateway.apps.apps[call.app]) { throw GatewayError.refused(field, problem) }
        let registration = DeviceRegistration(
            deviceId: try call.parameter("deviceId"), platform: platform, token: token,
            // A client token's device is its user's: the token's `sub` unless the body names a user.
            os: os, userId: try body.optionalString("userId", maxLength: 256) ?? call.caller.client?.userId,
            pushIds: body.has("pushIds") ? try Self.trimmed(try body.strings("pushIds", allowEmpty: true), field: "pushIds") : [],
            locale: try body.optionalString("locale", maxLength: 35), key: key)
        return try await gateway.registry(call.acting(.registerDevice(app: call.app, registration: registration)), status: 200)
    }

    /// The token and key a device hands over, as its provider takes them, and the field that
    /// holds the token: `token` (and `key`), or a browser's `subscription` (its `endpoint` the
    /// token, its `keys` the device's Web Push key).
    private func handedOver(_ body: JSONFields, platform: Platform, shape: RegistrationShape) throws(GatewayError) -> (token: String, key: DeviceKey?, field: String) {
        switch shape {
        case .token:
            if body.has("subscription") {
                throw GatewayError.invalid("subscription", "is what a browser registers with a Web Push platform; a \(platform) device registers its token")
            }
            let key: DeviceKey? = try body.optionalNested("key").map { key throws(GatewayError) in
                DeviceKey(keyId: try key.string("keyId", maxLength: 256), p256dh: try key.string("p256dh", maxLength: 512), auth: try key.string("auth", maxLength: 64))
            }
            return (try body.string("token"), key, "token")
        case .subscription:
            for field in ["token", "key"] where body.has(field) {
                throw GatewayError.invalid(field, "a \(platform) device registers its push subscription (subscription), not a \(field)")
            }
            let subscription = try body.nested("subscription")
            let keys = try subscription.nested("keys")
            let key = DeviceKey(keyId: Self.subscriptionKeyId, p256dh: try keys.string("p256dh", maxLength: 512), auth: try keys.string("auth", maxLength: 64))
            return (try subscription.string("endpoint", maxLength: 4096), key, "subscription.endpoint")
        }
    }

    /// The key id of a subscription's keys (the browser gives them none).
    static let subscriptionKeyId = "subscription"

    func getDevice(_ call: Gateway.Call) async throws -> Gateway.Reply {
        try await gateway.registry(call.acting(.getDevice(app: call.app, deviceId: try call.parameter("deviceId"))), status: 200)
    }

    func deleteDevice(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let userId = call.request.query["userId"]
        if let userId, !TextLimits.fits(userId, maximum: TextLimits.identifier) {
            throw GatewayError.invalid("userId", "must be 1 to \(TextLimits.identifier) characters")
        }
        return try await gateway.registry(call.acting(.unregisterDevice(app: call.app, deviceId: try call.parameter("deviceId"), userId: userId)), status: 200)
    }

    /// `POST …/devices/{deviceId}/unregister` with `{"token": <the device's push token>}`: a
    /// signed-out app removes its own device with no credential but the token its provider
    /// gave it (a browser's: its subscription's endpoint). The device id alone is never
    /// enough: a device that holds another token, or none of that id, stays as it is, and the
    /// answer (200, `removed: false`) does not say which.
    func unregisterDevice(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let token = try call.fields().string("token")
        let reply = try await gateway.call(
            RegistrationCommand.unregisterDevice(app: call.app, deviceId: try call.parameter("deviceId"), userId: nil, token: token), to: .registration, RegistrationReply.self)
        return try Gateway.json(200, RegistrationReply(removed: reply.removed ?? false, detail: reply.removed == true ? "removed" : "no device of this id holds this push token"))
    }
}

extension DeviceRecord {
    /// The device as the gateway shows it: its token masked (only its provider sees it whole).
    var masked: DeviceRecord {
        var device = self
        device.registration.token = TokenMask.masked(registration.token)
        return device
    }
}
