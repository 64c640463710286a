import Foundation
import HeraldDomain
import HeraldProviders
import Messaging
import ServiceKit

/// How `heraldctl` connects to the broker: fail fast with a clear error when it cannot,
/// rather than retrying for ever as a service does.
public enum ControlBroker {
    static let connectTimeout: Duration = .seconds(5)

    /// The broker: `flag` (a URL) when given, else the environment as the services read it
    /// (`HERALD_AMQP_URL`, `HERALD_AMQP_PASSWORD_FILE`); an `amqps://` one with the TLS
    /// settings the services read (`HERALD_AMQP_CA_FILE`, ...).
    public static func url(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ControlError) -> AMQPURL {
        do {
            return try ServiceEnvironment.brokerURLs(EnvironmentReader(environment), text: flag)[0]
        } catch {
            throw ControlError(.invalidInput, "the broker: \(error)")
        }
    }

    static func session(url: AMQPURL) async throws(ControlError) -> BrokerSession {
        do {
            return try await BrokerSession.open(url: url, name: "heraldctl", connectTimeout: connectTimeout)
        } catch {
            throw ControlError(.unreachable, "cannot reach the broker at \(url): \(error)")
        }
    }

    /// Herald's topology as the services declare it: each quorum queue on
    /// `HERALD_QUORUM_REPLICAS` nodes when set (a cluster's services declared them so).
    static func topology(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ControlError) -> AMQPTopology {
        do {
            return HeraldTopology.all(.herald).replicated(try ServiceEnvironment.quorumReplicas(EnvironmentReader(environment)))
        } catch {
            throw ControlError(.invalidInput, "\(error)")
        }
    }

    /// How many times a message the broker refuses is offered: about two minutes of patience,
    /// so a publish outlasts a cluster node's failover (the quorum queues electing leaders).
    static let nackAttempts = 60

    /// A confirming publisher whose connection is up (and Herald's topology declared).
    static func publisher(url: AMQPURL, name: String) async throws(ControlError) -> Publisher {
        let publisher = Publisher(configuration: ConnectionConfiguration(
            url: url, name: name, connectTimeout: connectTimeout, topology: try topology()), nackAttempts: nackAttempts)
        guard await publisher.waitUntilConnected(timeout: connectTimeout + .seconds(5)) else {
            let why = publisher.lastError.map { ": \($0)" } ?? ""
            await publisher.close(timeout: .seconds(1))
            throw ControlError(.unreachable, "cannot reach the broker at \(url)\(why)")
        }
        return publisher
    }
}
