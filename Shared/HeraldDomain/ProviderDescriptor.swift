import Foundation
import HeraldModel
import ServiceKit

/// What Herald's services know of a provider, declared once by its module: the platform it
/// serves, how its apps' settings are read and checked, whether devices register with it,
/// and its payload rules for the encryption stage. Queue names follow from the platform
/// (`HeraldTopology`). The dispatcher's own part (its client) is `DispatchProvider`, in
/// DispatchKit; the list of providers a deployment runs is a `ProviderRegistry`.
public protocol ProviderDescriptor: Sendable {
    /// The platform name: the route of a device, the routing key on `herald.dispatch`, and
    /// the tail of `dispatch.<platform>`.
    var platform: Platform { get }
    /// What its dispatcher does, in a sentence (`herald --help`, the manifest).
    var summary: String { get }
    /// Its dispatcher's executable: `herald-<platform>`.
    var executableName: String { get }
    /// Whether a device registers with this platform through the gateway (a push token);
    /// false for a route Herald chooses itself (webhooks).
    var registersDevices: Bool { get }
    /// What its devices hand over when they register (`RegistrationShape`): a token, or a
    /// browser's push subscription.
    var registrationShape: RegistrationShape { get }
    /// Whether an event's deliveries may go to it (a direct token of an event names it);
    /// false for a route only Herald itself sends on (callbacks).
    var deliversEvents: Bool { get }
    /// Reads and checks an app's settings for this provider, if its section is there:
    /// a `ConfigurationError` names the app's setting. Runs at every service's start.
    func validateSettings(of app: String, _ configuration: AppConfiguration) throws
    /// How the provider carries a notification (`PayloadShape`): the encryption stage builds
    /// its request by it.
    var payloadShape: PayloadShape { get }
    /// The documents it serves an app's clients through the gateway (`ProviderResource`).
    var resources: [ProviderResource] { get }
    /// Whether the request fits the provider's size limit, as sent at `now`.
    func fits(_ request: DispatchRequest, now: Date) -> Bool
    /// Whether a data key may not travel in clear to this provider (it reserves the name).
    func isReservedDataKey(_ key: String) -> Bool
    /// What is wrong with a device token for this provider and `app` (the gateway's 400, or
    /// 422 for a well-formed token Herald will not send to, names the field with it), or nil
    /// when it may be one.
    func tokenProblem(_ token: String, app: AppConfiguration?) -> TokenProblem?
    /// The system every device of this provider runs (APNs: iOS), or nil when it varies. A
    /// token of that system handed over without a platform is this provider's where the app
    /// has its account (`ProviderRegistry.tokenPlatform`).
    var deviceOS: DeviceOS? { get }
    /// Whether a token handed over without a platform (Smart ID's `deviceID`, an SDK that
    /// registers the system's token) is this provider's when no provider of the device's
    /// system serves the app: FCM's, whose tokens Android apps and iOS apps on Firebase hand over.
    var takesUnnamedTokens: Bool { get }
    /// Whether `token` is this provider's by its form alone (an APNs token is the hex of 32
    /// to 100 bytes): one handed over without a platform where the app has no account for
    /// it is refused, naming what is missing, instead of going to another provider.
    func recognizes(_ token: String) -> Bool
    /// The provider's name in messages for people (`APNs`, `Push Kit`).
    var displayName: String { get }
}

extension ProviderDescriptor {
    public func fits(_ request: DispatchRequest, now: Date) -> Bool { true }
    public func isReservedDataKey(_ key: String) -> Bool { false }
    public func tokenProblem(_ token: String, app: AppConfiguration?) -> TokenProblem? { nil }
    public var deviceOS: DeviceOS? { nil }
    public var takesUnnamedTokens: Bool { false }
    public func recognizes(_ token: String) -> Bool { false }
    public var displayName: String { platform.rawValue.uppercased() }
    public var deliversEvents: Bool { true }
    public var executableName: String { "herald-\(platform)" }
    public var summary: String { "delivers through the \(platform) provider" }
    public var payloadShape: PayloadShape { .dataMap }
    public var registrationShape: RegistrationShape { .token }
    public var resources: [ProviderResource] { [] }
}

/// A descriptor whose settings are one `ProviderSettings` section of an app.
public protocol ConfiguredProvider: ProviderDescriptor {
    associatedtype Settings: ProviderSettings
}

extension ConfiguredProvider {
    public func validateSettings(of app: String, _ configuration: AppConfiguration) throws {
        _ = try configuration.settings(Settings.self, app: app)
    }
}

/// Why a device token is refused: its form (`malformed`, 400), or a well-formed token Herald
/// will not send to (`unusable`, 422), such as a subscription on an address the app does not allow.
public struct TokenProblem: Sendable, Hashable, CustomStringConvertible {
    public var detail: String
    public var unusable: Bool

    public static func malformed(_ detail: String) -> TokenProblem { TokenProblem(detail: detail, unusable: false) }
    public static func unusable(_ detail: String) -> TokenProblem { TokenProblem(detail: detail, unusable: true) }

    public var description: String { detail }
}
