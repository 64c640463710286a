import Foundation


/// One-shot administrative operations (declare, count, purge, delete), each on a short-lived
/// connection on its own thread so no blocking C call runs on the async executor. For tools
/// and tests; services use `Publisher` and `Consumer`.
public struct BrokerAdmin: Sendable {
    public var url: AMQPURL
    public var connectTimeout: Duration

    public init(url: AMQPURL, connectTimeout: Duration = .seconds(5)) {
        self.url = url
        self.connectTimeout = connectTimeout
    }

    /// Declares `topology` (idempotent); returns a note for each queue an earlier release
    /// declared without an argument added since, which is used as it is.
    @discardableResult
    public func declare(_ topology: AMQPTopology) async throws -> [String] {
        try await run { try $0.declare(topology) }
    }

    /// How many messages are ready in `queue` (not counting unacknowledged ones).
    public func readyCount(_ queue: String) async throws -> Int {
        try await run { try $0.readyCount(queue) }
    }

    public func purge(_ queue: String) async throws {
        try await run { try $0.purge(queue) }
    }

    public func delete(queue: String) async throws {
        try await run { try $0.delete(queue: queue) }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (RabbitConnection) throws -> T) async throws -> T {
        let url = url
        let timeout = connectTimeout
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    let connection = try RabbitConnection(url: url, heartbeat: 0, name: "herald-admin", connectTimeout: timeout)
                    defer { connection.close() }
                    return try body(connection)
                })
            }
            thread.name = "amqp:admin"
            thread.start()
        }
    }
}
