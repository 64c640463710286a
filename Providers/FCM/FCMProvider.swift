import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import Logging
import ServiceKit

/// Firebase Cloud Messaging as a Herald provider: devices register FCM tokens, each app's
/// `fcm` section names its service account, a message is limited to FCM's 4,096 bytes (and
/// an iPhone's to the APNs body FCM makes of it, `FCMMessage.fits`)
/// and may not use FCM's reserved keys in clear, and `herald-fcm` sends one request per
/// delivery, a batch's concurrently.
public struct FCMProvider: DispatchProvider, ConfiguredProvider {
    public typealias Settings = FCMSettings
    public let platform = Platform.fcm
    public let registersDevices = true
    public let takesUnnamedTokens = true
    public let defaultPort = 8084
    public let summary = "consumes dispatch.fcm and sends each request to FCM HTTP v1 over HTTP/2 with the app's service-account OAuth; outcomes, revocations and broker-scheduled retries follow"

    public init() {}

    public func fits(_ request: DispatchRequest, now: Date) -> Bool {
        FCMMessage.fits(request)
    }

    public func isReservedDataKey(_ key: String) -> Bool { FCMMessage.isReservedDataKey(key) }

    public func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        DispatchStage.Batching(prefetch: 200)
    }

    public func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<FCMClient> {
        try ProviderDispatcher<FCMClient>(fcmApps: apps, logger: logger)
    }
}
