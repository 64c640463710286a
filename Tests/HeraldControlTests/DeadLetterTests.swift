import Foundation
import HeraldControl
import HeraldModel
@testable import Messaging
import Testing

@Suite("A dead letter read for heraldctl")
struct DeadLetterTests {
    static func letter(exchange: String = "herald.dead", routingKey: String, headers: [String: HeaderValue], expiration: String? = nil) -> DeadLetter {
        let properties = MessageProperties(
            contentType: "application/json", type: "herald.dispatch.v1", messageId: "d-1#1", expiration: expiration,
            persistent: true, headers: headers)
        let message = FetchedMessage(
            body: Data("{}".utf8), properties: properties, exchange: exchange, routingKey: routingKey,
            redelivered: false, deliveryTag: 1, remaining: 0)
        return DeadLetter(position: 1, message: message)
    }

    @Test("one a stage dead-lettered is replayed to the exchange and key its headers name, with its reason read and the stage's headers dropped")
    func aStageDeadLetterGoesBackWhereItCameFrom() {
        let letter = Self.letter(routingKey: "fcm", headers: [
            "x-herald-reason": .string("rejected: app x is not configured"), "x-herald-stage": .string("dispatch.fcm"),
            "x-herald-queue": .string("dispatch.fcm"), "x-herald-exchange": .string("herald.dispatch"),
            "x-herald-routing-key": .string("fcm"), "x-herald-attempts": .int(3), "x-custom": .string("kept"),
        ])
        #expect(letter.reason == "rejected: app x is not configured")
        #expect(letter.queue == "dispatch.fcm")
        let replay = letter.replayed()
        #expect(replay.exchange == "herald.dispatch")
        #expect(replay.routingKey == "fcm")
        #expect(replay.mandatory, "a replay no queue takes must fail, not vanish")
        #expect(replay.properties.headers["x-herald-replays"] == .int(1))
        #expect(replay.properties.headers["x-herald-reason"] == nil)
        #expect(replay.properties.headers["x-herald-attempts"] == nil, "a replay starts its attempts afresh")
        #expect(replay.properties.headers["x-custom"] == .string("kept"))
        #expect(replay.properties.messageId == "d-1#1")
    }

    @Test("one the broker expired is replayed to its first exchange and routing key, without its expiration or death history")
    func aBrokerDeadLetterGoesBackToItsFirstExchange() {
        let death: HeaderValue = .table([
            "reason": .string("expired"), "queue": .string("dispatch.fcm"), "exchange": .string("herald.dispatch"),
            "routing-keys": .array([.string("fcm")]), "count": .int(1),
        ])
        let letter = Self.letter(routingKey: "fcm", headers: [
            "x-death": .array([death]), "x-first-death-reason": .string("expired"), "x-first-death-queue": .string("dispatch.fcm"),
            "x-first-death-exchange": .string("herald.dispatch"), "x-herald-replays": .int(2),
        ], expiration: "100")
        #expect(letter.reason.hasPrefix("expired in dispatch.fcm"))
        #expect(letter.replays == 2)
        let replay = letter.replayed()
        #expect(replay.exchange == "herald.dispatch")
        #expect(replay.routingKey == "fcm")
        #expect(replay.properties.expiration == nil, "a replay must not expire again at once")
        #expect(replay.properties.headers.keys.allSatisfy { !$0.hasPrefix("x-death") && !$0.hasPrefix("x-first-death") })
        #expect(replay.properties.headers["x-herald-replays"] == .int(3))
    }
}

@Suite("heraldctl publish reads a contract before sending it")
struct ContractKindTests {
    @Test("short and full contract names are both read; an unknown one is refused listing the known ones")
    func names() throws {
        #expect(try ContractKind(named: "event") == .event)
        #expect(try ContractKind(named: "herald.token-revoked.v1") == .tokenRevoked)
        #expect(throws: ControlError.self) { try ContractKind(named: "herald.bogus.v1") }
    }

    @Test("an invalid event is refused with the field and the reason, as invalid input")
    func anInvalidEventNamesTheField() throws {
        let body = Data(#"{"id":"api:1","source":"api","kind":"news","app":"demo","audience":{"users":["u"]},"occurredAt":"2026-11-25T10:00:00Z","options":{"ttlSeconds":99999999}}"#.utf8)
        do {
            _ = try ContractKind.event.prepare(body)
            Issue.record("an event with a TTL beyond four weeks was accepted")
        } catch {
            #expect(error.reason == .invalidInput)
            #expect(error.message.contains("ttlSeconds"), "\(error.message)")
            #expect(error.exitCode == 65)
        }
    }

    @Test("a valid event goes where Herald publishes events, and numbered copies are distinct events")
    func aValidEventIsRoutedAndCopiedWithDistinctIds() throws {
        let body = Data(#"{"id":"api:1","source":"api","kind":"news","app":"demo","audience":{"users":["u"]},"occurredAt":"2026-11-25T10:00:00Z"}"#.utf8)
        let prepared = try ContractKind.event.prepare(body)
        #expect(prepared.route.exchange == "herald.events")
        #expect(prepared.route.routingKey == "api.news")
        let first = try prepared.message(exchange: "herald.events", routingKey: "api.news", copy: 1)
        let second = try prepared.message(exchange: "herald.events", routingKey: "api.news", copy: 2)
        #expect(first.properties.messageId == "api:1-1")
        #expect(second.properties.messageId == "api:1-2")
        #expect(try HeraldJSON.decode(NotificationEvent.self, from: second.body).id == "api:1-2")
    }
}
