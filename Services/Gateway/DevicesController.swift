import Foundation
import HeraldDomain
import HeraldModel

/// The endpoints that register and show devices, and sources' state routes (Smart ID's
/// profiles, Evernym's sponsees, Sudo's address keys, each validated by its source): the
/// change made by Registration over RPC, every token in an answer masked.
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

    /// A source's state route: its change made from the request, kept by Registration (a
    /// client token's within what its user may touch).
    func sourceState(_ route: SourceStateRoute, _ call: Gateway.Call) async throws -> Gateway.Reply {
        let app = gateway.apps.apps[call.app]
        var parameters: [String: String] = [:]
        for name in route.parameters { parameters[name] = try call.parameter(name) }
        let providers = gateway.providers
        let request = SourceStateRequest(
            body: try call.fields(), parameters: parameters, app: call.app, appConfiguration: app, clientUserId: call.caller.client?.userId,
            deviceTokenPlatform: { [self] token, os, field throws(GatewayError) in try unnamedTokenPlatform(token, os: os, app: call.app, field: field) },
            comMethod: { providers.comMethodToken($0, app: app) },
            comMethodForms: providers.devicePlatforms.filter { providers.serves($0, app: app) }.map { "\($0.rawValue.uppercased()):<token>" })
        let change = try route.makeChange(request)
        return try await gateway.registry(call.acting(.changeSourceState(app: call.app, change: change)), status: 200)
    }

    /// The platform of `token` handed over without one, checked as a registration's token is:
    /// one another provider recognises where the app has no account for it, or one its
    /// provider refuses, is refused naming `field`.
    private func unnamedTokenPlatform(_ token: String, os: DeviceOS, app: String, field: String) throws(GatewayError) -> Platform {
        let platform = try unnamedTokenPlatform(os: os, app: app, field: field)
        try refuseUnservedToken(token, os: os, platform: platform, app: app, field: field)
        if let problem = gateway.providers.tokenProblem(token, platform: platform, app: gateway.apps.apps[app]) { throw GatewayError.refused(field, problem) }
        return platform
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
            pushIds: body.has("pushIds") ? try SourceEventIds.trimmedIds(try body.strings("pushIds", allowEmpty: true), field: "pushIds") : [],
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
