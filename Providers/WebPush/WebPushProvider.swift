import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

extension Platform {
    /// Web Push (RFC 8030, RFC 8291, RFC 8292): a browser's push subscription.
    public static let webpush: Platform = "webpush"
}

/// Web Push as a Herald provider: a browser registers its `PushSubscription` (its endpoint
/// the token, its keys the device's key), every request is the whole message encrypted for
/// those keys (`aes128gcm`, at most 4,096 bytes, degraded to fit), each app's `webpush`
/// section names its VAPID key, and `herald-webpush` posts one request per delivery, a
/// batch's concurrently.
public struct WebPushProvider: DispatchProvider, ConfiguredProvider {
    public typealias Settings = WebPushSettings
    public let platform = Platform.webpush
    public let registersDevices = true
    public let deviceOS: DeviceOS? = .web
    public let registrationShape = RegistrationShape.subscription
    public let payloadShape = PayloadShape.encryptedMessage
    public let defaultPort = 8089
    public let displayName = "Web Push"
    public let summary = "consumes dispatch.webpush and posts each request's aes128gcm message to the subscription's push service with the app's VAPID key (RFC 8030, 8291, 8292)"

    /// The `applicationServerKey` a web page subscribes with: the public half of the app's
    /// VAPID key, base64url, at `GET /v1/apps/{app}/webpush/vapid-public-key`.
    public var resources: [ProviderResource] {
        [ProviderResource(
            name: "vapid-public-key", summary: "the app's VAPID public key, a web page's applicationServerKey for pushManager.subscribe()",
            fields: ["publicKey": "the uncompressed P-256 point (65 bytes), base64url: pass it as applicationServerKey"]
        ) { app, configuration in
            try configuration.settings(WebPushSettings.self, app: app).map { ["publicKey": try VAPIDKey(pemFile: $0.vapidPrivateKeyFile).publicKey] }
        }]
    }

    /// What a push service must take (RFC 8030 §7.2): 4,096 bytes of payload.
    public static let payloadLimit = 4096

    public init() {}

    public func fits(_ request: DispatchRequest, now: Date) -> Bool {
        // The base64url of the record: 4 characters for every 3 bytes.
        guard let payload = request.data["payload"] else { return false }
        return payload.utf8.count * 3 / 4 <= Self.payloadLimit
    }

    /// An https URL with a host: what a browser's subscription names. A host that is an IP
    /// literal must be a public address, or a private or loopback one where the app's
    /// `webpush.allowPrivateNetworks` lets the dispatcher send there.
    public func tokenProblem(_ token: String, app: AppConfiguration?) -> TokenProblem? {
        guard let url = URL(string: token), url.scheme == "https", let host = url.host, !host.isEmpty else {
            return .malformed("must be the subscription's https endpoint")
        }
        if let address = NetworkAddress(host), address.scope != .global {
            let allowed = (try? app?.settings(WebPushSettings.self, app: "-"))??.allowPrivateNetworks ?? false
            guard allowed, address.scope.isPrivateNetwork else {
                return .unusable("names a \(address.scope.rawValue) address, which Herald does not send to" + (address.scope.isPrivateNetwork ? " unless the app's webpush.allowPrivateNetworks is true" : ""))
            }
        }
        return nil
    }

    public func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        DispatchStage.Batching(prefetch: 200)
    }

    public func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<WebPushClient> {
        try ProviderDispatcher(platform: platform, apps: apps, transport: HTTPTransportConfiguration(name: "webpush"), logger: logger) { app, configuration, transport in
            guard let settings = try configuration.settings(WebPushSettings.self, app: app) else { return nil }
            let key: VAPIDKey
            do {
                key = try VAPIDKey(pemFile: settings.vapidPrivateKeyFile)
            } catch {
                throw ConfigurationError(.invalidFile, setting: "apps.\(app).webpush.vapidPrivateKeyFile", "\(error)")
            }
            return WebPushClient(app: app, key: key, subject: settings.subject, allowPrivateNetworks: settings.allowPrivateNetworks ?? false, transport: transport(settings.caFile))
        }
    }
}
