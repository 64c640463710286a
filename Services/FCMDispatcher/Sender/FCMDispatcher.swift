import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport
import Logging
import ServiceKit

/// FCM for every app of the configuration: one client per app (its own service account and
/// tokens), sharing one transport per CA file, so each endpoint gets one HTTP/2 connection.
public struct FCMDispatcher: Sendable {
    public let clients: [String: FCMClient]
    public let transports: [HTTPTransport]

    /// Reads every app's service account; throws `ConfigurationError` naming the app.
    public init(apps: AppsConfiguration, streams: Int = 100, logger: Logger) throws {
        var transports: [String: HTTPTransport] = [:]
        var clients: [String: FCMClient] = [:]
        for (app, configuration) in apps.apps {
            guard let fcm = configuration.fcm else { continue }
            let account: FCMServiceAccount
            do {
                account = try FCMServiceAccount.load(path: fcm.serviceAccountFile)
                _ = try FCMOAuth.assertion(for: account)
            } catch {
                throw ConfigurationError(.invalidValue, setting: "apps.\(app).fcm.serviceAccountFile", "\(error)")
            }
            let key = fcm.caFile ?? ""
            let transport = transports[key] ?? HTTPTransport(
                configuration: HTTPTransportConfiguration(name: "fcm", maxConcurrentStreams: streams, caFile: fcm.caFile), logger: logger)
            transports[key] = transport
            clients[app] = FCMClient(app: app, account: account, endpoint: fcm.endpoint, transport: transport)
        }
        self.clients = clients
        self.transports = Array(transports.values)
    }

    /// Sends `request` with its app's client.
    public func send(_ request: DispatchRequest) async -> SendResult {
        guard let client = clients[request.app] else {
            return .failed(code: "NOT_CONFIGURED", reason: "app \(request.app) has no fcm settings")
        }
        return await client.send(request)
    }
}
