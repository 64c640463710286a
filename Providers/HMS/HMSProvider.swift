import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import Logging
import ServiceKit

/// Huawei Push Kit as a Herald provider: devices register Push Kit tokens, each app's `hms`
/// section names its Push Kit app and OAuth client, a message body is limited to Push Kit's
/// 4,096 bytes, and `herald-hms` sends each batch it takes as few multicast requests as
/// its deliveries allow (`HMSMulticast`).
public struct HMSProvider: DispatchProvider, ConfiguredProvider {
    public typealias Settings = HMSSettings
    public let platform = Platform.hms
    public let registersDevices = true
    public let defaultPort = 8085
    public let summary = "consumes dispatch.hms and sends to Huawei Push Kit over HTTP/2 with each app's client-credentials OAuth, a batch's plain deliveries of one event as one multicast request"

    public init() {}

    public func fits(_ request: DispatchRequest, now: Date) -> Bool {
        HMSMessage.largestBodyByteCount(request, now: now) <= HMSMessage.bodyLimit
    }

    public func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        DispatchStage.Batching(prefetch: try HMSEnvironment.read(environment).prefetch)
    }

    public func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<HMSClient> {
        try ProviderDispatcher<HMSClient>(hmsApps: apps, logger: logger)
    }
}
