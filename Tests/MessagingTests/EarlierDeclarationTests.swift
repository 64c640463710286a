import Foundation
import Messaging
import HeraldTestSupport
import Testing

/// A queue an earlier release declared without an argument added since (RabbitMQ cannot
/// change a queue's arguments): the new declaration uses it as it is and says so, and a
/// difference in any other argument still fails.
@Suite("Queues an earlier release declared", .needs(.broker))
struct EarlierDeclarationTests {
    static func stream(_ name: String, bounded: Bool) -> QueueSpec {
        bounded
            ? QueueSpec(name, kind: .stream, maxAge: "1h", maxBytes: 64 << 20, segmentBytes: 1 << 20,
                        addedArguments: ["x-max-length-bytes", "x-stream-max-segment-size-bytes"])
            : QueueSpec(name, kind: .stream, maxAge: "1h")
    }

    @Test func aStreamDeclaredWithoutItsSizeBoundIsUsedAsItIsAndTheRestIsStillDeclared() async throws {
        let name = "test.earlier.\(UUID().uuidString.prefix(8))"
        let after = QueueSpec("\(name).after", kind: .classic, autoDelete: true)
        try await TestBroker.admin.declare(AMQPTopology(queues: [Self.stream(name, bounded: false)]))
        let notes = try await TestBroker.admin.declare(AMQPTopology(queues: [Self.stream(name, bounded: true), after]))
        #expect(notes.count == 1 && notes[0].contains(name) && notes[0].contains("x-max-length-bytes"))
        // The channel opened again: the queue after it was declared on it.
        #expect(try await TestBroker.admin.readyCount(after.name) == 0)
        try await TestBroker.admin.delete(queue: name)
        try await TestBroker.admin.delete(queue: after.name)
    }

    @Test func aNewStreamIsDeclaredWithItsSizeBoundAndNoNote() async throws {
        let name = "test.earlier.\(UUID().uuidString.prefix(8))"
        #expect(try await TestBroker.admin.declare(AMQPTopology(queues: [Self.stream(name, bounded: true)])).isEmpty)
        #expect(try await TestBroker.admin.declare(AMQPTopology(queues: [Self.stream(name, bounded: true)])).isEmpty)
        try await TestBroker.admin.delete(queue: name)
    }

    @Test func anotherDifferenceStillFails() async throws {
        let name = "test.earlier.\(UUID().uuidString.prefix(8))"
        try await TestBroker.admin.declare(AMQPTopology(queues: [Self.stream(name, bounded: true)]))
        var changed = Self.stream(name, bounded: true)
        changed.maxAge = "2h"
        await #expect(throws: MessagingError.self) { try await TestBroker.admin.declare(AMQPTopology(queues: [changed])) }
        try await TestBroker.admin.delete(queue: name)
    }
}
