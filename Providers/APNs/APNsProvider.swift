import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import Logging
import ServiceKit

/// Apple Push Notification service as a Herald provider: iOS devices register APNs device
/// tokens (hex, 32 to 100 bytes), each app's `apns` section names its signing key, topic and
/// environment, a push's body is limited to Apple's 4,096 bytes and may not use `aps` as a
/// data key, and `herald-apns` sends one HTTP/2 request per delivery, a batch's
/// concurrently.
public struct APNsProvider: DispatchProvider, ConfiguredProvider {
    public typealias Settings = APNsSettings
    public let platform = Platform.apns
    public let registersDevices = true
    public let deviceOS: DeviceOS? = .ios
    public let defaultPort = 8087
    public let summary = "consumes dispatch.apns and sends each request to Apple's APNs over HTTP/2 with the app's token-based provider token"

    public init() {}

    public func fits(_ request: DispatchRequest, now: Date) -> Bool {
        APNsMessage.size(request) <= APNsMessage.payloadLimit
    }

    public func isReservedDataKey(_ key: String) -> Bool { key == APNsMessage.reservedDataKey }

    public func tokenProblem(_ token: String, app: AppConfiguration?) -> TokenProblem? { APNsDeviceToken.problem(token).map(TokenProblem.malformed) }

    /// An APNs token is the hex of 32 bytes (up to 100); an FCM token never is hex alone.
    public func recognizes(_ token: String) -> Bool {
        guard let bytes = Hex.decode(token) else { return false }
        return (32...100).contains(bytes.count)
    }

    public let displayName = "APNs"

    public func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        DispatchStage.Batching(prefetch: 200)
    }

    public func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<APNsClient> {
        try ProviderDispatcher<APNsClient>(apnsApps: apps, logger: logger)
    }
}

/// What an APNs device token looks like: the hex of 32 to 100 bytes (Apple's tokens are
/// 32 bytes today and may grow).
public enum APNsDeviceToken {
    public static let bytes = 32...100

    /// What is wrong with `token`, or nil.
    public static func problem(_ token: String) -> String? {
        guard let bytes = Hex.decode(token) else { return "must be hexadecimal, two digits a byte (an APNs device token)" }
        guard self.bytes.contains(bytes.count) else { return "must be \(self.bytes.lowerBound) to \(self.bytes.upperBound) bytes in hex (an APNs device token)" }
        return nil
    }
}
