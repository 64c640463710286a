import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import JSONKit
import ServiceKit

/// Turns an allowed delivery into the provider payload for its device: renders the alert,
/// builds the data map, encrypts it per the policy, and degrades it until it fits the
/// provider's limit (each provider's own rule, from the registry). Pure and synchronous:
/// the encryption stage calls it once per delivery.
public struct PayloadBuilder: Sendable {
    /// What becomes of one delivery.
    public enum Decision: Sendable, Hashable {
        /// Publish this request; `variant` and `scheme` say which form was chosen.
        case dispatch(DispatchRequest, variant: DataMap.Variant, scheme: String?)
        /// The delivery's TTL ran out before it got here.
        case expired(String)
        case failed(PayloadFailure)
    }

    private let apps: AppsConfiguration
    private let providers: ProviderRegistry
    private let sources: SourceRegistry
    private let renderers: [String: TemplateRenderer]
    private let defaultRenderer: TemplateRenderer

    public init(apps: AppsConfiguration = AppsConfiguration(), providers: ProviderRegistry, sources: SourceRegistry) {
        self.apps = apps
        self.providers = providers
        self.sources = sources
        renderers = apps.apps.mapValues { TemplateRenderer(templates: $0.templates, sources: sources) }
        defaultRenderer = TemplateRenderer(sources: sources)
    }

    /// Decides the payload of `delivery` as of `now`.
    public func build(_ delivery: Delivery, now: Date = Date()) -> Decision {
        // A TTL of 0 means "now or never" to the providers: it is passed on, not expired here.
        // The decoders refuse a TTL over four weeks; one made in code is held to it here.
        let ttl = delivery.options.ttlSeconds.map { min(max(0, $0), DeliveryOptions.maximumTTL) }
        let expiresAt = ttl.flatMap { $0 > 0 ? delivery.occurredAt.addingTimeInterval(TimeInterval($0)) : nil }
        if let expiresAt, expiresAt <= now {
            return .expired("TTL of \(ttl ?? 0) s ran out at \(HeraldJSON.formatTimestamp(expiresAt))")
        }
        do {
            return try build(delivery, ttl: ttl, expiresAt: expiresAt, now: now)
        } catch {
            return .failed(error)
        }
    }

    private func build(_ delivery: Delivery, ttl: Int?, expiresAt: Date?, now: Date) throws(PayloadFailure) -> Decision {
        let device = delivery.device
        guard let provider = providers[device.platform] else {
            throw PayloadFailure(.noProvider, "no provider serves platform \(device.platform) here")
        }
        if provider.payloadShape == .forward { return try forward(delivery, ttl: ttl, expiresAt: expiresAt) }
        try checkDataKeys(delivery.data, provider: provider, inClear: false)
        let renderer = renderers[delivery.app] ?? defaultRenderer
        let presentation = sources.presentation(source: delivery.source, kind: delivery.kind)
        // An app's template `<source>.<kind>` is shown on every device, except for the kinds
        // whose alert only an iPhone shows (below): Android's handler gets their data alone.
        let alert = try renderer.render(
            delivery.alert ?? (presentation.iOSAlertTemplate == nil ? renderer.appAlert(source: delivery.source, kind: delivery.kind) : nil),
            locale: device.locale, context: delivery.context, data: delivery.data)
        // The alert an iPhone shows for an event that brings none but must be seen (a sign-in
        // request, an Evernym message): the app's template of that name, else Herald's.
        let iOSOnlyAlert = try alert == nil ? presentation.iOSAlertTemplate.map { name throws(PayloadFailure) in
            try renderer.render(.template(name: name, args: [:]), locale: device.locale, context: delivery.context, data: delivery.data)
        } ?? nil : nil
        let key = try payloadKey(of: delivery, shape: provider.payloadShape)
        let isIOS = device.os == .ios
        // A token whose system Herald does not know (an Evernym `FCM:` com method) may be an
        // iPhone: the alert goes where only iOS reads it, and Android's handler gets the data.
        let mayBeIOS = device.os == .other

        var request = DispatchRequest(
            deliveryId: delivery.deliveryId, eventId: delivery.eventId, app: delivery.app, kind: delivery.kind,
            platform: device.platform, deviceId: device.id, token: device.token, os: device.os, data: [:],
            ttlSeconds: ttl,
            priority: delivery.options.priority ?? (delivery.options.critical || (presentation.isChat && alert != nil) ? .high : .normal),
            collapseKey: delivery.options.collapseKey, expiresAt: expiresAt, acceptedAt: delivery.acceptedAt,
            category: presentation.category)

        // Every variant with the alert as it is first; only when none fits, with a long alert
        // text shortened (a chat message's text is the payload, the data only ids).
        for shortening in [false, true] {
            for variant in DataMap.variants(kind: delivery.kind, hideData: delivery.options.hideData) {
                let plain = DataMap.plain(eventId: delivery.eventId, kind: delivery.kind, data: delivery.data, variant: variant)
                guard let key else {
                    try checkDataKeys(delivery.data, provider: provider, inClear: true)
                    request.data = plain
                    var shown = isIOS ? alert ?? iOSOnlyAlert : alert
                    request.ios = isIOS ? DispatchRequest.IOSHints(mutableContent: iOSOnlyAlert != nil, contentAvailable: shown == nil) : nil
                    if isIOS && sources.iOSDecodesInExtension(delivery.source) {
                        // The app's extension decodes every push: an alert push it can see, never a silent one.
                        shown = try shown ?? renderer.render(
                            .template(name: TemplateRenderer.placeholderTemplate, args: [:]), locale: device.locale, context: [:], data: [:])
                        request.ios = DispatchRequest.IOSHints(mutableContent: true, contentAvailable: false)
                    }
                    if mayBeIOS, let iOSOnlyAlert {
                        request.ios = DispatchRequest.IOSHints(mutableContent: true, alert: iOSOnlyAlert)
                    }
                    present(&request, presentation, shows: alert ?? iOSOnlyAlert)
                    guard let fitting = Self.fitting(shown, shortening: shortening, { alert in
                        request.notification = alert
                        return provider.fits(request, now: now)
                    }) else { continue }
                    request.notification = fitting
                    return .dispatch(request, variant: variant, scheme: nil)
                }
                // Measure with a stand-in of the exact length, encrypt only the variant that fits.
                request.notification = isIOS ? try renderer.render(.template(name: TemplateRenderer.encryptedTemplate, args: [:]), locale: device.locale, context: [:], data: [:]) : nil
                request.ios = isIOS ? DispatchRequest.IOSHints(mutableContent: true, contentAvailable: false) : nil
                present(&request, presentation, shows: alert ?? iOSOnlyAlert)
                guard let fitting = Self.fitting(alert, shortening: shortening, { alert in
                    let count = Self.plaintext(plain, alert: alert).count
                    request.data = ["herald": DataMap.version, "enc": key.scheme, "kid": key.keyId,
                                    "payload": String(repeating: "A", count: key.payloadLength(plaintextCount: count))]
                    return provider.fits(request, now: now)
                }) else { continue }
                let plaintext = Self.plaintext(plain, alert: fitting)
                request.data["payload"] = try key.encrypt(plaintext)
                return .dispatch(request, variant: variant, scheme: key.scheme)
            }
        }
        throw PayloadFailure(.tooBig, "the payload exceeds the \(device.platform.rawValue) limit even as \(DataMap.variants(kind: delivery.kind, hideData: delivery.options.hideData).last!.rawValue)")
    }

    /// The presentation's hints on an iPhone's request that `shows` an alert of its event
    /// (not a placeholder): its interruption level and sound.
    private func present(_ request: inout DispatchRequest, _ presentation: PushPresentation, shows alert: DispatchRequest.Notification?) {
        guard alert != nil, var hints = request.ios, !hints.contentAvailable else { return }
        hints.interruptionLevel = presentation.interruptionLevel
        hints.sound = presentation.sound
        request.ios = hints
    }

    /// The alert with which the push fits its provider (`fits`, which the last call leaves
    /// the request measured with): `alert` as it is, or with `shortening` its body cut to
    /// fit; `.some(nil)` for a push without an alert that fits, nil when nothing fits.
    static func fitting(
        _ alert: DispatchRequest.Notification?, shortening: Bool, _ fits: (DispatchRequest.Notification?) -> Bool
    ) -> DispatchRequest.Notification?? {
        guard shortening else { return fits(alert) ? .some(alert) : nil }
        guard let alert, let body = alert.body, let shortened = shortened(alert, body: body, fits: { fits($0) }) else { return nil }
        _ = fits(shortened)
        return .some(shortened)
    }

    /// `alert` with the longest beginning of `body` that fits, cut on a character boundary
    /// and ended with an ellipsis; nil when not even the ellipsis alone fits.
    static func shortened(
        _ alert: DispatchRequest.Notification, body: String, fits: (DispatchRequest.Notification) -> Bool
    ) -> DispatchRequest.Notification? {
        let characters = Array(body)
        func candidate(_ count: Int) -> DispatchRequest.Notification {
            DispatchRequest.Notification(title: alert.title, body: String(characters[..<count]) + ellipsis)
        }
        guard fits(candidate(0)) else { return nil }
        // The longest count that fits: fits(lower) holds, fits(upper) does not.
        var lower = 0, upper = characters.count
        while upper - lower > 1 {
            let middle = (lower + upper) / 2
            if fits(candidate(middle)) { lower = middle } else { upper = middle }
        }
        return candidate(lower)
    }

    /// What ends a shortened text.
    static let ellipsis = "\u{2026}"

    /// A webhook delivery: the event's data and context as they are, and the alert rendered
    /// for the recipient's locale, never encrypted (the tenant's own server reads it) nor
    /// degraded (a webhook has no size limit).
    private func forward(_ delivery: Delivery, ttl: Int?, expiresAt: Date?) throws(PayloadFailure) -> Decision {
        let device = delivery.device
        guard let recipient = device.recipient else {
            throw PayloadFailure(.notForwardable, "webhook delivery to \(device.id) names no recipient (a device registered with platform webhook?)")
        }
        let renderer = renderers[delivery.app] ?? defaultRenderer
        let alert = try renderer.render(
            delivery.alert ?? renderer.appAlert(source: delivery.source, kind: delivery.kind), locale: device.locale, context: delivery.context, data: delivery.data)
        let request = DispatchRequest(
            deliveryId: delivery.deliveryId, eventId: delivery.eventId, app: delivery.app, kind: delivery.kind,
            platform: .webhook, deviceId: device.id, token: device.token, os: device.os, data: delivery.data,
            notification: alert, ttlSeconds: ttl,
            priority: delivery.options.priority ?? (delivery.options.critical ? .high : .normal),
            collapseKey: delivery.options.collapseKey, expiresAt: expiresAt,
            forward: DispatchRequest.WebhookForward(source: delivery.source, occurredAt: delivery.occurredAt, context: delivery.context, recipient: recipient),
            acceptedAt: delivery.acceptedAt)
        return .dispatch(request, variant: .full, scheme: nil)
    }

    /// Herald's own keys are refused always; the provider's only where the data travels in
    /// clear (inside an encrypted payload any key is fine).
    private func checkDataKeys(_ data: [String: String], provider: any ProviderDescriptor, inClear: Bool) throws(PayloadFailure) {
        for key in data.keys.sorted() {
            if !inClear, DataMap.reservedKeys.contains(key) {
                throw PayloadFailure(.reservedDataKey, "data key \"\(key)\" is reserved by Herald")
            }
            if inClear, provider.isReservedDataKey(key) {
                throw PayloadFailure(.reservedDataKey, "data key \"\(key)\" is reserved by \(Self.providerName(provider.platform))")
            }
        }
    }

    /// How a provider is named in a failure: its platform in capitals (`FCM`).
    private static func providerName(_ platform: Platform) -> String { platform.rawValue.uppercased() }

    /// The key to encrypt to, per the policy: the address's RSA key when the audience was an
    /// address, else the device's Web Push key; nil to send plain.
    private func payloadKey(of delivery: Delivery, shape: PayloadShape) throws(PayloadFailure) -> PayloadKey? {
        if shape == .encryptedMessage {
            // The whole message, for the device's own key, whatever the policy says.
            guard let key = delivery.device.key else {
                throw PayloadFailure(.keyMissing, "a \(delivery.device.platform) device is reached only through its own Web Push keys, and \(delivery.device.id) has none registered")
            }
            do {
                return .webPush(try WebPushKey(p256dh: key.p256dh, auth: key.auth), keyId: key.keyId)
            } catch {
                throw PayloadFailure(.invalidKey, "the registered key cannot be used: \(error)")
            }
        }
        let policy = delivery.options.encryption ?? apps.apps[delivery.app]?.encryption ?? .preferred
        if policy == .none { return nil }
        do {
            if let address = delivery.addressKey {
                return .jwe(try RSAEncryptionKey(address.publicKey), keyId: address.keyId)
            }
            if let key = delivery.device.key {
                return .webPush(try WebPushKey(p256dh: key.p256dh, auth: key.auth), keyId: key.keyId)
            }
        } catch let error as HeraldCryptoError {
            throw PayloadFailure(.invalidKey, "the registered key cannot be used: \(error)")
        } catch {
            throw PayloadFailure(.invalidKey, "the registered key cannot be used: \(error)")
        }
        if policy == .required {
            throw PayloadFailure(.keyMissing, "encryption is required but device \(delivery.device.id) has no key registered\(delivery.context["emailAddressId"].map { " and address \($0) has none either" } ?? "")")
        }
        return nil
    }

    /// The UTF-8 JSON the device decrypts: the plain map, and the alert when there is one.
    static func plaintext(_ plain: [String: String], alert: DispatchRequest.Notification?) -> Data {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        var keys = Array(plain.keys)
        if alert != nil, plain["alert"] == nil { keys.append("alert") }
        for key in keys.sorted() {
            json.key(key)
            if key == "alert", let alert {
                json.titleAndBody(title: alert.title, body: alert.body)
            } else {
                json.string(plain[key]!)
            }
        }
        json.endObject()
        return json.data
    }

    /// The key a payload is encrypted to, with the id the app gave it.
    enum PayloadKey {
        case webPush(WebPushKey, keyId: String)
        case jwe(RSAEncryptionKey, keyId: String)

        var scheme: String {
            switch self {
            case .webPush: WebPushEncryption.scheme
            case .jwe: JWE.scheme
            }
        }

        var keyId: String {
            switch self {
            case .webPush(_, let id), .jwe(_, let id): id
            }
        }

        /// The length of the `payload` value for a plaintext of `count` bytes.
        func payloadLength(plaintextCount count: Int) -> Int {
            switch self {
            case .webPush: (WebPushEncryption.encryptedSize(plaintextCount: count) * 4 + 2) / 3
            case .jwe(let key, let id): JWE.compactSize(plaintextCount: count, keyBits: key.bits, keyId: id)
            }
        }

        func encrypt(_ plaintext: Data) throws(PayloadFailure) -> String {
            do {
                switch self {
                case .webPush(let key, _):
                    // One record always; only webhook payloads outgrow the usual 4096 bytes.
                    let recordSize = max(WebPushEncryption.defaultRecordSize, plaintext.count + 17)
                    return Base64URL.encode(try WebPushEncryption.encrypt(plaintext, to: key, recordSize: recordSize))
                case .jwe(let key, let id): return try JWE.encrypt(plaintext, to: key, keyId: id)
                }
            } catch {
                throw PayloadFailure(.invalidKey, "encryption failed: \(error)")
            }
        }
    }
}
