import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit
import Synchronization

/// A provider that exists only in this test target, to show that a provider is a plug-in:
/// registered in a `ProviderRegistry` here, with no production file naming it, it is
/// served by the gateway, the topology, the encryption stage and the dispatch stage.
/// A pigeon carries at most 200 bytes of data, from the loft its app's settings name.
struct PigeonProvider: DispatchProvider, ConfiguredProvider {
    typealias Settings = PigeonSettings
    static let name: Platform = "pigeon"
    /// The most bytes of data (keys and values) a pigeon carries.
    static let dataLimit = 200

    let platform = PigeonProvider.name
    let registersDevices = true
    let defaultPort = 0
    /// What the pigeons took, for the test to read.
    let log: PigeonLog

    func fits(_ request: DispatchRequest, now: Date) -> Bool {
        request.data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } <= Self.dataLimit
    }

    func isReservedDataKey(_ key: String) -> Bool { key == "seed" }

    func batching(environment: [String: String]) throws -> DispatchStage.Batching {
        DispatchStage.Batching(prefetch: 16)
    }

    func dispatcher(apps: AppsConfiguration, environment: [String: String], logger: Logger) throws -> ProviderDispatcher<PigeonClient> {
        try ProviderDispatcher(platform: platform, apps: apps, transport: HTTPTransportConfiguration(name: "pigeon"), logger: logger) { app, configuration, _ in
            try configuration.settings(PigeonSettings.self, app: app).map { PigeonClient(loft: $0.loft, log: log) }
        }
    }
}

/// An app's `pigeon` section: the loft its pigeons fly from.
struct PigeonSettings: ProviderSettings {
    static let key = "pigeon"
    var loft: String

    func validate(resolve: (String) -> String, invalid: (String, String) -> ConfigurationError) throws {
        guard !loft.isEmpty else { throw invalid("loft", "names no loft") }
    }
}

/// Sends each request by pigeon: records it and answers delivered.
struct PigeonClient: UnicastProviderClient {
    let loft: String
    let log: PigeonLog

    func send(_ request: DispatchRequest) async -> SendResult {
        log.append(request)
        return .delivered(providerId: "\(loft)-\(request.deliveryId)")
    }
}

/// The requests the pigeons took.
final class PigeonLog: Sendable {
    private let requests = Mutex<[DispatchRequest]>([])
    func append(_ request: DispatchRequest) { requests.withLock { $0.append(request) } }
    var taken: [DispatchRequest] { requests.withLock { $0 } }
}
