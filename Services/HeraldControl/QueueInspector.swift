import Foundation
import HeraldDomain
import HeraldProviders
import HTTPTransport
import JSONKit
import Messaging
import ServiceKit

/// Depth, rates and consumers of every Herald queue (work queues, delay tiers, dead letters,
/// command queues, streams). Ready messages and consumers come from passive declares over
/// AMQP (exact at this moment); unacknowledged messages and rates from the broker's
/// management API where it answers (its statistics are a few seconds old).
public struct QueueInspector: Sendable {
    public var amqpURL: AMQPURL
    /// The management API's base URL (`http://host:15672`).
    public var managementURL: String

    public init(amqpURL: AMQPURL, managementURL: String? = nil) {
        self.amqpURL = amqpURL
        self.managementURL = managementURL ?? "http://\(amqpURL.host):15672"
    }

    /// Herald's queues, in the topology's order.
    public static var queueNames: [String] { HeraldTopology.all(.herald).queues.map(\.name) }

    /// Every Herald queue, and whether the management API added its figures.
    public func statuses() async throws(ControlError) -> (statuses: [QueueStatus], management: Bool) {
        var statuses = try await fromAMQP()
        guard let managed = await fromManagement() else { return (statuses, false) }
        for index in statuses.indices where statuses[index].exists {
            guard let figures = managed[statuses[index].name] else { continue }
            statuses[index].unacknowledged = figures.unacknowledged
            statuses[index].publishRate = figures.publishRate
            statuses[index].deliverRate = figures.deliverRate
        }
        return (statuses, true)
    }

    /// Unacknowledged messages and rates by queue name, or nil when the API does not answer.
    private func fromManagement() async -> [String: (unacknowledged: Int, publishRate: Double, deliverRate: Double)]? {
        let vhost = amqpURL.virtualHost.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? amqpURL.virtualHost
        let credentials = Data("\(amqpURL.user):\(amqpURL.password)".utf8).base64EncodedString()
        let columns = "name,messages_unacknowledged,message_stats.publish_details.rate,message_stats.deliver_get_details.rate"
        let request = HTTPRequest(
            method: "GET", url: "\(managementURL)/api/queues/\(vhost)?columns=\(columns)",
            headers: [("Authorization", "Basic \(credentials)"), ("Accept", "application/json")])
        let response = try? await OneRequest.send(request, name: "heraldctl-management", connectTimeout: .seconds(2), requestTimeout: .seconds(10))
        guard let response, response.status == 200,
              let list = (try? JSONValue(json: response.body))?.arrayValue else { return nil }
        var figures: [String: (unacknowledged: Int, publishRate: Double, deliverRate: Double)] = [:]
        for queue in list {
            guard let name = queue["name"]?.stringValue else { continue }
            let stats = queue["message_stats"]
            func rate(_ key: String) -> Double { stats?[key]?["rate"]?.doubleValue ?? 0 }
            figures[name] = (queue["messages_unacknowledged"]?.intValue ?? 0, rate("publish_details"), rate("deliver_get_details"))
        }
        return figures
    }

    private func fromAMQP() async throws(ControlError) -> [QueueStatus] {
        var statuses: [QueueStatus] = []
        var session = try await ControlBroker.session(url: amqpURL)
        for name in Self.queueNames {
            do {
                let counts = try await session.inspect(name)
                statuses.append(QueueStatus(name: name, exists: true, ready: counts.ready, unacknowledged: nil, consumers: counts.consumers))
            } catch {
                // A queue that does not exist closes the channel: the next one needs a new session.
                statuses.append(QueueStatus(name: name, exists: false, ready: 0, unacknowledged: nil, consumers: 0))
                await session.close()
                session = try await ControlBroker.session(url: amqpURL)
            }
        }
        await session.close()
        return statuses
    }
}
