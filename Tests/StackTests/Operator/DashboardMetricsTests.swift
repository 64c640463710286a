import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import Messaging
import ServiceKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Grafana dashboard (deploy/grafana/dashboards/herald.json) asks only for metrics the
/// running services and RabbitMQ's Prometheus plugin export, so it cannot drift from the code.
extension ServiceProcesses {
    @Suite("The Grafana dashboard")
    struct DashboardMetricsTests {
        static let repository = PythonChecker.packageRoot
        /// RabbitMQ's per-queue metrics, as deploy/prometheus/prometheus.yml scrapes them.
        static let rabbitMQMetrics = TestBroker.metricsURL

        /// Every `herald_…` and `rabbitmq_…` name in the dashboard's queries.
        static func dashboardMetrics() throws -> Set<String> {
            let data = try Data(contentsOf: repository.appendingPathComponent("deploy/grafana/dashboards/herald.json"))
            let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let panels = dashboard["panels"] as? [[String: Any]] ?? []
            let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
            let pattern = try NSRegularExpression(pattern: #"\b(?:herald|rabbitmq)_[a-z0-9_]+"#)
            return Set(expressions.flatMap { expression in
                pattern.matches(in: expression, range: NSRange(expression.startIndex..., in: expression)).map {
                    String(expression[Range($0.range, in: expression)!])
                }
            })
        }

        /// The sample names in a Prometheus text exposition.
        static func sampleNames(_ text: String) -> Set<String> {
            Set(text.split(separator: "\n").compactMap { line in
                guard !line.hasPrefix("#"), let end = line.firstIndex(where: { $0 == "{" || $0 == " " }) else { return nil }
                return String(line[..<end])
            })
        }

        static func scrape(_ url: String) async -> String {
            guard let url = URL(string: url), let (data, _) = try? await URLSession.shared.data(from: url) else { return "" }
            return String(decoding: data, as: UTF8.self)
        }

        @Test("every metric the dashboard queries is exported by a running service or by RabbitMQ")
        func everyDashboardMetricIsExported() async throws {
            let wanted = try Self.dashboardMetrics()
            #expect(wanted.count >= 15, "the dashboard's queries name its metrics: \(wanted.sorted())")
            let stack = try await HeraldStack.start()
            do {
                // Work that touches every path the dashboard shows: a delivery, a retry (the
                // token fails once with 503), a revocation, a filtered one, a payload Herald
                // cannot build (encryption required, no key), and a dead letter.
                try await stack.expectOK("PUT", "/devices/dash-ok", ["platform": "fcm", "token": "unavailable-1-dash", "os": "android", "userId": "dash-1"])
                try await stack.expectOK("PUT", "/devices/dash-dead", ["platform": "fcm", "token": "unregistered-dash", "os": "android", "userId": "dash-1"])
                try await stack.expectOK("PUT", "/devices/dash-muted", ["platform": "fcm", "token": "dash-muted", "os": "android", "userId": "dash-2"])
                try await stack.expectOK("PUT", "/users/dash-2/preferences", ["enabled": false])
                try await stack.postEvent(["id": "dash-1", "source": "api", "kind": "news", "audience": ["users": ["dash-1", "dash-2"]], "data": ["a": "b"]])
                try await stack.postEvent(["id": "dash-2", "source": "api", "kind": "news", "audience": ["users": ["dash-1"]], "options": ["encryption": "required"]])
                let publisher = Publisher(configuration: TestBroker.configuration("dashboard-test"))
                // Straight into Registration's queue, not through herald.events: other tests'
                // queues bound there read every event and would choke on it.
                try await publisher.publish(OutgoingMessage(
                    exchange: "", routingKey: HeraldTopology.Queue.registrationEvents.name, body: Data("not json".utf8),
                    properties: .contract(NotificationEvent.contractName, messageId: "dash-broken", correlationId: "dash-broken")))
                await publisher.close()
                try await eventually(timeout: .seconds(30), "the retried push delivered") { !stack.received("unavailable-1-dash").isEmpty }

                var missing = wanted
                let deadline = ContinuousClock.now + .seconds(30)
                while !missing.isEmpty, ContinuousClock.now < deadline {
                    var exported = Self.sampleNames(await Self.scrape(Self.rabbitMQMetrics))
                    for service in stack.services {
                        exported.formUnion(Self.sampleNames(await Self.scrape("http://127.0.0.1:\(service.healthPort)/metrics")))
                    }
                    missing = wanted.subtracting(exported)
                    if !missing.isEmpty { try await Task.sleep(for: .milliseconds(500)) }
                }
                #expect(missing.isEmpty, "the dashboard queries metrics nothing exports: \(missing.sorted())")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
