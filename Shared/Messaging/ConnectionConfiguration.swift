
import Logging

/// How to reach the broker and what to declare there. Every publisher, consumer and RPC
/// endpoint opens its own connection with this configuration and keeps it open by itself.
public struct ConnectionConfiguration: Sendable {
    public var url: AMQPURL
    /// The other nodes of a cluster: after a failed or lost connection the next address is
    /// tried (`url`, then each of these, round and round), so a node that goes down costs a
    /// reconnect, not an outage.
    public var failover: [AMQPURL] = []
    /// Shown as `connection_name` in `rabbitmqctl list_connections` and the management UI.
    public var name: String
    /// The heartbeat interval asked of the broker; a connection that hears nothing for two
    /// intervals is considered lost. The URL's `?heartbeat=` wins when present.
    public var heartbeat: Duration
    public var connectTimeout: Duration
    /// Declared on every (re)connect, before anything else happens; declaring is idempotent.
    public var topology: AMQPTopology
    /// Delays between reconnect attempts.
    public var reconnect: Backoff
    /// How long a publish may wait for its confirm (not counting time the broker blocks
    /// publishers for a resource alarm). Past it the connection is dropped and every
    /// unconfirmed message published again on a new one: a broker that lost track of a
    /// confirm (a quorum queue whose leader stopped) must not stall the publisher for ever.
    public var confirmTimeout: Duration = .seconds(30)
    public var logger: Logger

    public init(
        url: AMQPURL, name: String, heartbeat: Duration = .seconds(10),
        connectTimeout: Duration = .seconds(5), topology: AMQPTopology = AMQPTopology(),
        reconnect: Backoff = Backoff(), logger: Logger = Logger(label: "herald.messaging")
    ) {
        self.url = url
        self.name = name
        self.heartbeat = heartbeat
        self.connectTimeout = connectTimeout
        self.topology = topology
        self.reconnect = reconnect
        self.logger = logger
    }

    /// Every address, `url` first.
    public var addresses: [AMQPURL] { [url] + failover }

    /// The heartbeat in whole seconds, as negotiated at login.
    var heartbeatSeconds: Int {
        url.heartbeat ?? Int(heartbeat.components.seconds)
    }

    /// The same configuration under another connection name.
    public func named(_ name: String) -> ConnectionConfiguration {
        var copy = self
        copy.name = name
        return copy
    }
}
