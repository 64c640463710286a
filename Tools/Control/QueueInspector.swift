import Foundation
import HTTPTransport
import Messaging
import ServiceKit

/// Depth, rates and consumers of every Herald queue (work queues, delay tiers, dead letters,
/// command queues, streams), from the broker's management API, or, where that does not
/// answer, from passive declares over AMQP (depth and consumers, no rates).
public struct QueueInspector: Sendable {
    public var amqpURL: AMQPURL
    /// The management API's base URL (`http://host:15672`).
    public var managementURL: String

    public init(amqpURL: AMQPURL, managementURL: String? = nil) {
        self.amqpURL = amqpURL
        self.managementURL = managementURL ?? "http://\(amqpURL.host):15672"
    }

    /// Herald's queues, in the topology's order.
    public static var queueNames: [String] { HeraldTopology.all.queues.map(\.name) }

    /// Every Herald queue, and where the figures came from (`management` or `amqp`).
    public func statuses() async throws(ControlError) -> (statuses: [QueueStatus], source: String) {
        if let statuses = await fromManagement() { return (statuses, "management") }
        return (try await fromAMQP(), "amqp")
    }

    private func fromManagement() async -> [QueueStatus]? {
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "heraldctl-management", connectTimeout: .seconds(2), requestTimeout: .seconds(10)))
        let vhost = amqpURL.virtualHost.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? amqpURL.virtualHost
        let credentials = Data("\(amqpURL.user):\(amqpURL.password)".utf8).base64EncodedString()
        let columns = "name,messages,messages_ready,messages_unacknowledged,consumers,message_stats.publish_details.rate,message_stats.deliver_get_details.rate"
        let request = HTTPRequest(
            method: "GET", url: "\(managementURL)/api/queues/\(vhost)?columns=\(columns)",
            headers: [("Authorization", "Basic \(credentials)"), ("Accept", "application/json")])
        let response = try? await transport.send(request)
        await transport.close()
        guard let response, response.status == 200,
              let list = try? JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] else { return nil }
        var byName: [String: [String: Any]] = [:]
        for queue in list { if let name = queue["name"] as? String { byName[name] = queue } }
        return Self.queueNames.map { name in
            guard let queue = byName[name] else {
                return QueueStatus(name: name, exists: false, messages: nil, ready: 0, unacknowledged: nil, consumers: 0)
            }
            let stats = queue["message_stats"] as? [String: Any]
            func rate(_ key: String) -> Double { ((stats?[key] as? [String: Any])?["rate"] as? NSNumber)?.doubleValue ?? 0 }
            return QueueStatus(
                name: name, exists: true, messages: (queue["messages"] as? NSNumber)?.intValue, ready: (queue["messages_ready"] as? NSNumber)?.intValue ?? 0,
                unacknowledged: (queue["messages_unacknowledged"] as? NSNumber)?.intValue, consumers: (queue["consumers"] as? NSNumber)?.intValue ?? 0,
                publishRate: rate("publish_details"), deliverRate: rate("deliver_get_details"))
        }
    }

    private func fromAMQP() async throws(ControlError) -> [QueueStatus] {
        var statuses: [QueueStatus] = []
        var session = try await ControlBroker.session(url: amqpURL)
        for name in Self.queueNames {
            do {
                let counts = try await session.inspect(name)
                statuses.append(QueueStatus(name: name, exists: true, messages: nil, ready: counts.ready, unacknowledged: nil, consumers: counts.consumers))
            } catch {
                // A queue that does not exist closes the channel: the next one needs a new session.
                statuses.append(QueueStatus(name: name, exists: false, messages: nil, ready: 0, unacknowledged: nil, consumers: 0))
                await session.close()
                session = try await ControlBroker.session(url: amqpURL)
            }
        }
        await session.close()
        return statuses
    }
}
