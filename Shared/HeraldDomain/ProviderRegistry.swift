import HeraldModel
import ServiceKit

/// The providers a deployment runs: the one list the gateway's accepted platforms,
/// Registration's routes, the encryption stage's size rules, the topology's dispatch queues
/// and heraldctl read. Herald's own list is `ProviderRegistry.herald` (HeraldProviders);
/// tests add providers of their own.
public struct ProviderRegistry: Sendable {
    public let providers: [any ProviderDescriptor]
    private let byPlatform: [Platform: any ProviderDescriptor]

    /// `providers` in order; a platform named twice is a programming error.
    public init(_ providers: [any ProviderDescriptor] = []) {
        var byPlatform: [Platform: any ProviderDescriptor] = [:]
        for provider in providers {
            precondition(byPlatform[provider.platform] == nil, "two providers for platform \(provider.platform)")
            byPlatform[provider.platform] = provider
        }
        self.providers = providers
        self.byPlatform = byPlatform
    }

    /// Every platform, in the registry's order.
    public var platforms: [Platform] { providers.map(\.platform) }

    /// The platforms an event's direct tokens may name.
    public var eventPlatforms: [Platform] { providers.filter(\.deliversEvents).map(\.platform) }

    /// The platforms a device may register with.
    public var devicePlatforms: [Platform] { providers.filter(\.registersDevices).map(\.platform) }

    public subscript(platform: Platform) -> (any ProviderDescriptor)? { byPlatform[platform] }

    /// The platform of a device token an upstream hands over without naming one (Smart ID's
    /// `deviceID`, a device registered without `platform`): the provider of the device's
    /// system where the app has its account (an iOS device's is an APNs token when the app
    /// has an `apns` section), else the one that takes unnamed tokens (FCM: an iOS app on
    /// Firebase hands over an FCM token); nil when no provider here does.
    public func tokenPlatform(os: DeviceOS, app: AppConfiguration?) -> Platform? {
        if let native = providers.first(where: { $0.registersDevices && $0.deviceOS == os && serves($0.platform, app: app) }) {
            return native.platform
        }
        return providers.first(where: { $0.registersDevices && $0.takesUnnamedTokens })?.platform
    }

    /// The provider that recognises `token` by its form, when it is not `platform`'s: a token
    /// handed over without a platform that would go to the wrong provider.
    public func otherRecognizer(of token: String, than platform: Platform) -> (any ProviderDescriptor)? {
        providers.first { $0.platform != platform && $0.registersDevices && $0.recognizes(token) }
    }

    /// Whether `platform`'s provider runs here and `app` has its section (its account).
    public func serves(_ platform: Platform, app: AppConfiguration?) -> Bool {
        self[platform] != nil && app?.providerSections[platform.rawValue] != nil
    }

    /// The token of an Evernym com method's value that names a provider (`FCM:<token>`,
    /// `HMS:<token>`, `APNS:<token>`: the platform's name, in capitals, a colon, the token),
    /// when devices of that provider register, `app` has its account and the token is one
    /// the provider takes; nil otherwise.
    public func comMethodToken(_ value: String, app: AppConfiguration?) -> DirectToken? {
        guard let direct = DirectToken(comMethod: value), self[direct.platform]?.registersDevices == true, serves(direct.platform, app: app),
              tokenProblem(direct.token, platform: direct.platform, app: app) == nil else { return nil }
        return direct
    }

    /// The system of a device registered with `platform` that names none: the provider's
    /// own (an APNs token comes from an Apple device), else Android, as before.
    public func deviceOS(platform: Platform) -> DeviceOS {
        self[platform]?.deviceOS ?? .android
    }

    /// What is wrong with `token` for `platform`'s provider and `app`, or nil.
    public func tokenProblem(_ token: String, platform: Platform, app: AppConfiguration?) -> TokenProblem? {
        self[platform]?.tokenProblem(token, app: app)
    }

    /// This registry and `more`.
    public func adding(_ more: [any ProviderDescriptor]) -> ProviderRegistry {
        ProviderRegistry(providers + more)
    }

    /// Checks every app's settings for every provider: the first problem, naming its setting.
    public func validate(_ apps: AppsConfiguration) throws {
        for (id, app) in apps.apps.sorted(by: { $0.key < $1.key }) {
            for provider in providers { try provider.validateSettings(of: id, app) }
        }
    }
}
