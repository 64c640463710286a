import Foundation
import HeraldModel
import ServiceKit
import Yams

/// The apps Herald serves, from the YAML file named by `HERALD_CONFIG`:
///
/// ```yaml
/// apps:
///   demo:
///     apiKeys:
///       - id: ci
///         sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
///         scopes: [events, devices, admin]
///       - id: ops                             # no scopes: events only
///         file: /run/secrets/demo-ops-key     # the key itself, read at start
///     encryption: preferred
///     fcm:                                    # a provider's section (FCMSettings)
///       serviceAccountFile: /run/secrets/demo-fcm.json
///       endpoint: https://sandbox:8443        # override, e.g. the sandbox
///     hms:                                    # another's (HMSSettings)
///       appId: "104523"
///       clientId: "104523"
///       clientSecretFile: /run/secrets/demo-hms-secret
///       endpoint: https://sandbox:8443
///       tokenEndpoint: https://sandbox:8443/oauth2/v3/token
///     delivery:
///       mode: direct                          # or webhook: every delivery forwarded
///       url: https://tenant.example/herald    # the app's webhook (also for type-3 sponsees)
///       signingSecretFile: /run/secrets/demo-webhook   # one or two whsec_ secrets, a line each
///       allowPrivateNetworks: false           # true lets the URL reach loopback/private addresses
///     callbacks:                              # what Herald tells the integrator (optional)
///       url: https://tenant.example/herald-callbacks
///       signingSecretFile: /run/secrets/demo-callbacks
///       events: [device.revoked]
///     templates:
///       message.created:
///         en: { title: "{user} ({channel})", body: "{text}" }
///     defaultTTL:                             # seconds, for events that name no TTL
///       smartid: { auth: 120 }                # by source, then kind ("*": any kind)
///     clientTokens:                           # JWTs the tenant's backend mints for one user
///       hmacSecretFile: /run/secrets/demo-client-tokens   # HS256, at least 32 bytes
///       publicKeyFile: keys/client-tokens.pem             # or ES256 (either or both)
///       maxLifetime: 86400                    # seconds; a token living longer is refused
/// ```
///
/// Relative file paths are resolved against the YAML file's folder. Every key of an app
/// besides Herald's own (`apiKeys`, `clientTokens`, `encryption`, `delivery`, `callbacks`, `templates`,
/// `criticalKinds`, `rateLimits`, `defaultTTL`, `notifyActor`, `optInServices`, `ingestURLs`) is a provider's section, kept as written and read by that provider
/// (`AppConfiguration.settings`); the provider registry checks them all at start.
public struct AppsConfiguration: Sendable, Hashable {
    public var apps: [String: AppConfiguration]

    public init(apps: [String: AppConfiguration] = [:]) {
        self.apps = apps
    }

    /// Loads and validates the file at `path`.
    public static func load(path: String) throws -> AppsConfiguration {
        let url = URL(fileURLWithPath: path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(.missingFile, setting: "HERALD_CONFIG", "cannot read \(path)")
        }
        return try parse(String(decoding: data, as: UTF8.self), relativeTo: url.deletingLastPathComponent())
    }

    /// Parses and validates YAML text; relative paths resolve against `folder`.
    public static func parse(_ yaml: String, relativeTo folder: URL? = nil) throws -> AppsConfiguration {
        let file: File
        let sections: [String: [String: String]]
        do {
            file = try YAMLDecoder().decode(File.self, from: yaml)
            sections = try providerSections(yaml)
        } catch let error as DecodingError {
            throw ConfigurationError(.invalidFile, setting: "HERALD_CONFIG", HeraldJSON.describe(error))
        } catch {
            throw ConfigurationError(.invalidFile, setting: "HERALD_CONFIG", "not valid YAML: \(error)")
        }
        var apps: [String: AppConfiguration] = [:]
        for (id, var app) in file.apps ?? [:] {
            app.providerSections = sections[id] ?? [:]
            app.folder = folder
            try app.validate(id: id, folder: folder)
            apps[id] = app
        }
        return AppsConfiguration(apps: apps)
    }

    /// Each app's provider sections (every key that is not Herald's own), as YAML text.
    private static func providerSections(_ yaml: String) throws -> [String: [String: String]] {
        guard case .mapping(let root)? = try Yams.compose(yaml: yaml), case .mapping(let apps)? = root["apps"] else { return [:] }
        var sections: [String: [String: String]] = [:]
        for (id, app) in apps {
            guard let id = id.string, case .mapping(let keys) = app else { continue }
            for (key, value) in keys {
                guard let key = key.string, !AppConfiguration.ownKeys.contains(key) else { continue }
                sections[id, default: [:]][key] = try Yams.serialize(node: value)
            }
        }
        return sections
    }

    private struct File: Decodable {
        var apps: [String: AppConfiguration]?
    }
}

/// One app's settings.
public struct AppConfiguration: Decodable, Sendable, Hashable {
    public var apiKeys: [APIKey]
    /// How the app's own mobile apps authenticate: user-bound tokens, if the app takes them.
    public var clientTokens: ClientTokenSettings?
    public var encryption: EncryptionPolicy
    public var delivery: Forwarding
    /// Where Herald posts callbacks about what happened (a device revoked), if anywhere.
    public var callbacks: Callbacks?
    /// Templates by event kind, then locale (`en`, `et-EE`, …).
    public var templates: [String: [String: Template]]
    /// Event kinds that are critical for this app (e.g. Smart ID `auth`): they skip the
    /// user, channel and kind toggles, like events sent with `options.critical`.
    public var criticalKinds: [String]
    /// How many requests the gateway takes from the app and from each of its keys.
    public var rateLimits: RateLimits
    /// The TTL of an event that names none, by source and kind (Herald's defaults where the
    /// app says nothing).
    public var defaultTTL: DefaultTTL
    /// Whether the user who acted (an Upstra event's actor: the sender of a message, the
    /// user who joined) is notified of their own act when the upstream lists them among the
    /// recipients; false unless the app says so.
    public var notifyActor: Bool
    /// The services (a device configuration's `service`: `sudo-email`, or an event's source)
    /// that reach a device only once its notification configuration enables them; every other
    /// service reaches it unless the configuration disables it. Sudo's email by default:
    /// "before your application will receive … notifications, you must enable them".
    public var optInServices: [String]
    /// Each provider's section by its key (`fcm`, `hms`, …), as YAML text: the provider
    /// reads its own with `settings(_:app:)`.
    public var providerSections: [String: String]
    /// Where relative file paths in the provider sections resolve (the apps file's folder).
    public var folder: URL?

    /// `providers` are settings of provider modules, each under its own key.
    public init(
        apiKeys: [APIKey] = [], encryption: EncryptionPolicy = .preferred, providers: [any ProviderSettings] = [],
        delivery: Forwarding = Forwarding(), callbacks: Callbacks? = nil, templates: [String: [String: Template]] = [:],
        criticalKinds: [String] = [], rateLimits: RateLimits = RateLimits(), defaultTTL: DefaultTTL = DefaultTTL(),
        clientTokens: ClientTokenSettings? = nil, notifyActor: Bool = false, optInServices: [String] = AppConfiguration.defaultOptInServices,
        ingestURLs: [IngestURL] = []
    ) {
        self.clientTokens = clientTokens
        self.notifyActor = notifyActor
        self.optInServices = optInServices
        self.ingestURLs = ingestURLs
        self.callbacks = callbacks
        self.defaultTTL = defaultTTL
        self.criticalKinds = criticalKinds
        self.rateLimits = rateLimits
        self.apiKeys = apiKeys
        self.encryption = encryption
        self.delivery = delivery
        self.templates = templates
        var sections: [String: String] = [:]
        for settings in providers {
            func text<S: ProviderSettings>(_ settings: S) -> (String, String) {
                // Encoding plain Codable structs to YAML does not fail.
                (S.key, (try? YAMLEncoder().encode(settings)) ?? "")
            }
            let (key, yaml) = text(settings)
            sections[key] = yaml
        }
        providerSections = sections
        folder = nil
    }

    /// The keys that are Herald's own; every other key of an app is a provider's section.
    static let ownKeys: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case apiKeys, clientTokens, encryption, delivery, callbacks, templates, criticalKinds, rateLimits, defaultTTL
        case notifyActor, optInServices, ingestURLs
    }

    /// The opt-in services of an app that names none: Sudo's email.
    public static let defaultOptInServices = ["sudo-email"]

    /// The app's settings for the provider whose section `S` is, nil when the app has none;
    /// read, checked and with its paths resolved. `app` is the app's id, for the errors.
    public func settings<S: ProviderSettings>(_ type: S.Type, app: String) throws -> S? {
        guard let yaml = providerSections[S.key] else { return nil }
        let setting = "apps.\(app).\(S.key)"
        var settings: S
        do {
            settings = try YAMLDecoder().decode(S.self, from: yaml)
        } catch {
            let reason = HeraldJSON.describe(error).replacingOccurrences(of: "the document: ", with: "")
            throw ConfigurationError(.invalidFile, setting: "HERALD_CONFIG", "\(setting): \(reason)")
        }
        try settings.validate(resolve: { path in
            guard let folder, !path.hasPrefix("/") else { return path }
            return folder.appendingPathComponent(path).path
        }, invalid: { path, message in ConfigurationError(.invalidValue, setting: "\(setting).\(path)", message) })
        return settings
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        apiKeys = try c.decodeIfPresent([APIKey].self, forKey: .apiKeys) ?? []
        clientTokens = try c.decodeIfPresent(ClientTokenSettings.self, forKey: .clientTokens)
        encryption = try c.decodeIfPresent(EncryptionPolicy.self, forKey: .encryption) ?? .preferred
        delivery = try c.decodeIfPresent(Forwarding.self, forKey: .delivery) ?? Forwarding()
        callbacks = try c.decodeIfPresent(Callbacks.self, forKey: .callbacks)
        templates = try c.decodeIfPresent([String: [String: Template]].self, forKey: .templates) ?? [:]
        criticalKinds = try c.decodeIfPresent([String].self, forKey: .criticalKinds) ?? []
        rateLimits = try c.decodeIfPresent(RateLimits.self, forKey: .rateLimits) ?? RateLimits()
        defaultTTL = try c.decodeIfPresent(DefaultTTL.self, forKey: .defaultTTL) ?? DefaultTTL()
        notifyActor = try c.decodeIfPresent(Bool.self, forKey: .notifyActor) ?? false
        optInServices = try c.decodeIfPresent([String].self, forKey: .optInServices) ?? Self.defaultOptInServices
        ingestURLs = try c.decodeIfPresent([IngestURL].self, forKey: .ingestURLs) ?? []
        providerSections = [:]
        folder = nil
    }

    /// Token buckets for the gateway: `app` for all of the app's requests, `key` for each of
    /// its keys. Either left out is no limit.
    public struct RateLimits: Codable, Sendable, Hashable {
        public var app: RateLimit?
        public var key: RateLimit?
        public init(app: RateLimit? = nil, key: RateLimit? = nil) {
            self.app = app
            self.key = key
        }
    }

    /// A token bucket: `perSecond` requests a second on average, up to `burst` at once.
    public struct RateLimit: Codable, Sendable, Hashable {
        public var perSecond: Double
        public var burst: Int
        public init(perSecond: Double, burst: Int) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    /// The app's ingest URLs held in the file (`ingestURLs`), each by the SHA-256 of its
    /// secret; those created at run time live in Registration's store.
    public var ingestURLs: [IngestURL]

    /// An ingest URL in the apps file: its id, its source (`IngestSource`), the SHA-256 (hex)
    /// of its secret, and optionally the sender networks it takes requests from (CIDRs).
    public struct IngestURL: Codable, Sendable, Hashable {
        public var id: String
        public var source: String
        public var sha256: String
        public var networks: [String]?

        public init(id: String, source: String, sha256: String, networks: [String]? = nil) {
            self.id = id
            self.source = source
            self.sha256 = sha256
            self.networks = networks
        }
    }

    /// An API key: its SHA-256 (hex), or a file holding the key itself. A key without a
    /// scope list may only post events (`defaultScopes`): devices and admin are given by name.
    public struct APIKey: Codable, Sendable, Hashable {
        /// The scopes of a key that lists none.
        public static let defaultScopes: [Scope] = [.events]

        public var id: String
        public var sha256: String?
        public var file: String?
        public var scopes: [Scope]?

        public init(id: String, sha256: String? = nil, file: String? = nil, scopes: [Scope]? = nil) {
            self.id = id
            self.sha256 = sha256
            self.file = file
            self.scopes = scopes
        }
    }

    /// What a key may do: post events (`events`), manage devices and preferences
    /// (`devices`), switch the app's notifications (`admin`), or sign in to the Herald Console
    /// (`console`, which then acts with every scope; an `admin` key may sign in too).
    public enum Scope: String, Codable, Sendable, Hashable, CaseIterable {
        case events, devices, admin, console
    }

    /// The apps file's `delivery` section: how the app's deliveries leave Herald, and its
    /// webhook. In `webhook` mode every delivery is forwarded to `url`; in `direct` mode only
    /// those of type-3 Evernym sponsees are (the sponsor's endpoint), the rest go to the
    /// providers. (A `Delivery` is one event for one device: HeraldModel's contract.)
    public struct Forwarding: Codable, Sendable, Hashable {
        public enum Mode: String, Codable, Sendable, Hashable {
            case direct, webhook
        }

        public var mode: Mode
        /// The webhook endpoint, http(s).
        public var url: String?
        /// A file holding the endpoint's `whsec_` signing secret; two lines (new, then old)
        /// while rotating, and every forward is signed with both.
        public var signingSecretFile: String?
        /// Lets the endpoint resolve to loopback, private, link-local or unique-local
        /// addresses, which are refused otherwise.
        public var allowPrivateNetworks: Bool
        /// A PEM bundle of the CAs to trust for an https endpoint instead of the system's.
        public var caFile: String?

        public init(mode: Mode = .direct, url: String? = nil, signingSecretFile: String? = nil, allowPrivateNetworks: Bool = false, caFile: String? = nil) {
            self.mode = mode
            self.url = url
            self.signingSecretFile = signingSecretFile
            self.allowPrivateNetworks = allowPrivateNetworks
            self.caFile = caFile
        }

        private enum CodingKeys: String, CodingKey { case mode, url, signingSecretFile, allowPrivateNetworks, caFile }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            mode = try c.decodeIfPresent(Mode.self, forKey: .mode) ?? .direct
            url = try c.decodeIfPresent(String.self, forKey: .url)
            signingSecretFile = try c.decodeIfPresent(String.self, forKey: .signingSecretFile)
            allowPrivateNetworks = try c.decodeIfPresent(Bool.self, forKey: .allowPrivateNetworks) ?? false
            caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        }
    }

    /// The app's callback endpoint: Standard Webhooks-signed POSTs, like a webhook's
    /// forwards, of the `events` the app chose. Separate from `delivery`: an app in direct
    /// mode may have callbacks, and a webhook-mode app's callbacks may go elsewhere.
    public struct Callbacks: Codable, Sendable, Hashable {
        public var url: String
        /// One or two `whsec_` secrets, a line each, as for `delivery`.
        public var signingSecretFile: String
        public var events: [CallbackEvent]
        public var allowPrivateNetworks: Bool
        public var caFile: String?

        public init(url: String, signingSecretFile: String, events: [CallbackEvent], allowPrivateNetworks: Bool = false, caFile: String? = nil) {
            self.url = url
            self.signingSecretFile = signingSecretFile
            self.events = events
            self.allowPrivateNetworks = allowPrivateNetworks
            self.caFile = caFile
        }

        /// Whether the app asked for `event`.
        public func wants(_ event: CallbackEvent) -> Bool { events.contains(event) }

        private enum CodingKeys: String, CodingKey { case url, signingSecretFile, events, allowPrivateNetworks, caFile }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            signingSecretFile = try c.decode(String.self, forKey: .signingSecretFile)
            events = try c.decode([CallbackEvent].self, forKey: .events)
            allowPrivateNetworks = try c.decodeIfPresent(Bool.self, forKey: .allowPrivateNetworks) ?? false
            caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        }
    }

    /// A title and body with `{placeholder}`s; either may be left out.
    public struct Template: Codable, Sendable, Hashable {
        public var title: String?
        public var body: String?
        public init(title: String?, body: String?) {
            self.title = title
            self.body = body
        }
    }

    /// Checks what the types cannot, and resolves relative file paths against `folder`.
    /// Whether `url` is an http(s) URL with a host: what a webhook or callback endpoint must be.
    static func isHTTPURL(_ url: String) -> Bool {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else { return false }
        return ["http", "https"].contains(scheme) && parsed.host?.isEmpty == false
    }

    mutating func validate(id: String, folder: URL?) throws {
        let prefix = "apps.\(id)"
        func invalid(_ path: String, _ message: String) -> ConfigurationError {
            ConfigurationError(.invalidValue, setting: "\(prefix).\(path)", message)
        }
        func resolve(_ path: String) -> String {
            guard let folder, !path.hasPrefix("/") else { return path }
            return folder.appendingPathComponent(path).path
        }
        guard id.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", options: .regularExpression) != nil else {
            throw ConfigurationError(.invalidValue, setting: prefix, "an app id is 1-64 letters, digits, '.', '_' or '-'")
        }
        var seen = Set<String>()
        for index in apiKeys.indices {
            let key = apiKeys[index]
            guard seen.insert(key.id).inserted else { throw invalid("apiKeys[\(index)].id", "\"\(key.id)\" is used twice") }
            switch (key.sha256, key.file) {
            case (let hash?, nil):
                guard hash.range(of: "^[0-9a-fA-F]{64}$", options: .regularExpression) != nil else {
                    throw invalid("apiKeys[\(index)].sha256", "must be 64 hex digits")
                }
            case (nil, let file?):
                apiKeys[index].file = resolve(file)
            default:
                throw invalid("apiKeys[\(index)]", "give exactly one of sha256 or file")
            }
        }
        var ingestIds = Set<String>()
        for (index, url) in ingestURLs.enumerated() {
            guard url.id.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", options: .regularExpression) != nil else {
                throw invalid("ingestURLs[\(index)].id", "1-64 letters, digits, '.', '_' or '-'")
            }
            guard ingestIds.insert(url.id).inserted else { throw invalid("ingestURLs[\(index)].id", "\"\(url.id)\" is used twice") }
            guard url.sha256.range(of: "^[0-9a-fA-F]{64}$", options: .regularExpression) != nil else {
                throw invalid("ingestURLs[\(index)].sha256", "must be 64 hex digits (the secret's SHA-256)")
            }
            for (position, network) in (url.networks ?? []).enumerated()
            where network.range(of: "^([0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)(/[0-9]{1,3})?$", options: .regularExpression) == nil {
                throw invalid("ingestURLs[\(index)].networks[\(position)]", "must be an IPv4 or IPv6 network, as 192.0.2.0/24 or 2001:db8::/32")
            }
        }
        for (name, limit) in [("app", rateLimits.app), ("key", rateLimits.key)] {
            guard let limit else { continue }
            guard limit.perSecond > 0, limit.perSecond.isFinite else { throw invalid("rateLimits.\(name).perSecond", "must be a positive number") }
            guard limit.burst >= 1 else { throw invalid("rateLimits.\(name).burst", "must be at least 1") }
        }
        if let (path, reason) = defaultTTL.problem() { throw invalid("defaultTTL.\(path)", reason) }
        if var clientTokens {
            guard clientTokens.hmacSecretFile != nil || clientTokens.publicKeyFile != nil else {
                throw invalid("clientTokens", "give hmacSecretFile (HS256), publicKeyFile (ES256) or both")
            }
            guard ClientTokenSettings.lifetimeRange.contains(clientTokens.maxLifetime) else {
                throw invalid("clientTokens.maxLifetime", "must be \(ClientTokenSettings.lifetimeRange.lowerBound) to \(ClientTokenSettings.lifetimeRange.upperBound) seconds")
            }
            clientTokens.hmacSecretFile = clientTokens.hmacSecretFile.map(resolve)
            clientTokens.publicKeyFile = clientTokens.publicKeyFile.map(resolve)
            self.clientTokens = clientTokens
        }
        if delivery.mode == .webhook, delivery.url == nil {
            throw invalid("delivery.url", "webhook mode needs an http(s) URL")
        }
        if let url = delivery.url {
            guard Self.isHTTPURL(url) else { throw invalid("delivery.url", "\"\(url)\" is not an http(s) URL with a host") }
            guard delivery.signingSecretFile != nil else {
                throw invalid("delivery.signingSecretFile", "a webhook needs a signing secret file")
            }
        }
        delivery.signingSecretFile = delivery.signingSecretFile.map(resolve)
        delivery.caFile = delivery.caFile.map(resolve)
        if var callbacks {
            guard Self.isHTTPURL(callbacks.url) else { throw invalid("callbacks.url", "\"\(callbacks.url)\" is not an http(s) URL with a host") }
            guard !callbacks.events.isEmpty else {
                throw invalid("callbacks.events", "name at least one of \(CallbackEvent.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            callbacks.signingSecretFile = resolve(callbacks.signingSecretFile)
            callbacks.caFile = callbacks.caFile.map(resolve)
            self.callbacks = callbacks
        }
    }
}
