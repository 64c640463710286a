import Foundation
import HTTPTransport
import JSONKit

/// Whether Herald's services are ready, as each says at its `/readyz`: what the console's
/// overview shows. A service that does not answer in time is reported not ready, with why.
public enum ServiceReadiness {
    /// One service to ask: its name and the base URL of its health endpoints.
    public struct Target: Sendable, Hashable {
        public var name: String
        public var url: String

        public init(name: String, url: String) {
            self.name = name
            self.url = url
        }
    }

    /// What one service answered.
    public struct Report: Sendable, Hashable {
        public var name: String
        public var ready: Bool
        /// Each readiness check and `ok` or `failing`, as the service reports them.
        public var checks: [String: String]
        /// Why the service could not be asked, when it could not.
        public var error: String?

        public init(name: String, ready: Bool, checks: [String: String], error: String? = nil) {
            self.name = name
            self.ready = ready
            self.checks = checks
            self.error = error
        }

        public var json: [String: Any] {
            var object: [String: Any] = ["name": name, "ready": ready, "checks": checks]
            if let error { object["error"] = error }
            return object
        }
    }

    /// Asks every target at once; answers in the targets' order.
    public static func check(_ targets: [Target], timeout: Duration = .seconds(2)) async -> [Report] {
        await withTaskGroup(of: (Int, Report).self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask { (index, await check(target, timeout: timeout)) }
            }
            var reports: [(Int, Report)] = []
            for await report in group { reports.append(report) }
            return reports.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    static func check(_ target: Target, timeout: Duration) async -> Report {
        let base = target.url.hasSuffix("/") ? String(target.url.dropLast()) : target.url
        do {
            let response = try await OneRequest.send(
                HTTPRequest(method: "GET", url: base + "/readyz", headers: [("Accept", "application/json")]),
                name: "console-readiness", connectTimeout: timeout, requestTimeout: timeout)
            let object = (try? JSONValue(json: response.body))?.objectValue
            let checks = (object?["checks"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
            return Report(name: target.name, ready: response.status == 200, checks: checks,
                          error: response.status == 200 || object != nil ? nil : "answered \(response.status)")
        } catch {
            return Report(name: target.name, ready: false, checks: [:], error: "\(error)")
        }
    }
}
