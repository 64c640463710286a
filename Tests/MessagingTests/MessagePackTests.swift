import Foundation
import Messaging
import Testing

/// Packing messages that travel together (pure: no broker).
@Suite("Message packs")
struct MessagePackTests {
    static func message(_ n: Int, exchange: String = "x", key: String = "k", type: String = "t.v1", headers: [String: HeaderValue] = [:]) -> OutgoingMessage {
        OutgoingMessage(exchange: exchange, routingKey: key, body: Data(#"{"n":\#(n)}"#.utf8),
                        properties: MessageProperties(type: type, messageId: "m\(n)", headers: headers), mandatory: true)
    }

    static func elements(_ message: OutgoingMessage) throws -> [Int] {
        try (JSONSerialization.jsonObject(with: message.body) as! [[String: Int]]).map { $0["n"]! }
    }

    @Test func aSingleMessageIsNotPacked() {
        let one = Self.message(1)
        #expect(MessagePack.pack([one]) == [one])
    }

    @Test func messagesForOneExchangeKeyAndTypeBecomeOnePackInOrder() throws {
        let packed = MessagePack.pack((1...5).map { Self.message($0) })
        #expect(packed.count == 1)
        #expect(packed[0].properties.headers[MessagePack.header]?.intValue == 5)
        #expect(packed[0].properties.type == "t.v1" && packed[0].mandatory && packed[0].exchange == "x" && packed[0].routingKey == "k")
        #expect(try Self.elements(packed[0]) == [1, 2, 3, 4, 5])
    }

    @Test func differentRoutingKeysAndTypesArePackedApart() throws {
        let packed = MessagePack.pack([Self.message(1), Self.message(2, key: "other"), Self.message(3), Self.message(4, type: "u.v1")])
        #expect(packed.count == 3)
        #expect(try Self.elements(packed.first { $0.routingKey == "k" && $0.properties.type == "t.v1" }!) == [1, 3])
    }

    @Test func messagesWithHeadersOfTheirOwnTravelAlone() {
        let special = Self.message(2, headers: ["x-herald-reason": .string("why")])
        let packed = MessagePack.pack([Self.message(1), special, Self.message(3)])
        #expect(packed.contains(special))
        #expect(packed.count == 2)
    }

    @Test func aPackExpiresWhenItsLastElementWould() throws {
        var messages = (1...3).map { Self.message($0) }
        for (message, expiration) in zip(messages.indices, ["5000", "90000", "100"]) { messages[message].properties.expiration = expiration }
        let packed = MessagePack.pack(messages)
        #expect(packed.count == 1)
        #expect(packed[0].properties.expiration == "90000")
        #expect(try Self.elements(packed[0]) == [1, 2, 3])
    }

    @Test func aPackWithAnElementThatNeverExpiresNeverExpires() {
        var messages = (1...3).map { Self.message($0) }
        messages[0].properties.expiration = "5000"
        messages[2].properties.expiration = "100"
        let packed = MessagePack.pack(messages)
        #expect(packed.count == 1)
        #expect(packed[0].properties.expiration == nil)
    }

    @Test func packsAreSplitAtTheCountLimit() throws {
        let packed = MessagePack.pack((0..<(MessagePack.maxCount * 2 + 1)).map { Self.message($0) })
        #expect(packed.map { MessagePack.count(of: $0.properties) } == [MessagePack.maxCount, MessagePack.maxCount, 1])
        #expect(try packed.prefix(2).flatMap(Self.elements) + [MessagePack.maxCount * 2] == Array(0...(MessagePack.maxCount * 2)))
    }

    @Test func packsAreSplitBeforeTheByteLimit() {
        let big = String(repeating: "a", count: MessagePack.maxBytes / 3)
        let messages = (0..<4).map { n in
            OutgoingMessage(exchange: "x", routingKey: "k", body: Data(#"{"n":\#(n),"pad":"\#(big)"}"#.utf8), properties: MessageProperties(type: "t.v1"))
        }
        let packed = MessagePack.pack(messages)
        #expect(packed.allSatisfy { $0.body.count <= MessagePack.maxBytes })
        #expect(packed.map { MessagePack.count(of: $0.properties) }.reduce(0, +) == 4)
    }

    @Test func elementsOfDifferentTracesPackTogetherAndEachKeepsItsTraceContext() throws {
        let traced = (1...3).map { n in
            Self.message(n, headers: n == 2 ? [:] : ["traceparent": .string("00-\(String(repeating: "\(n)", count: 32))-\(String(repeating: "a", count: 16))-01")])
        }
        let packed = MessagePack.pack(traced)
        #expect(packed.count == 1, "trace headers do not keep messages apart")
        #expect(packed[0].properties.headers["traceparent"] == nil, "a pack has no one trace of its own")
        for (index, element) in traced.enumerated() {
            #expect(MessagePack.traceHeaders(of: packed[0].properties, element: index) == element.properties.headers)
        }
    }

    @Test func otherHeadersStillKeepAMessageAlone() {
        let packed = MessagePack.pack([Self.message(1, headers: ["traceparent": .string("x"), "x-other": .int(1)]), Self.message(2)])
        #expect(packed.count == 2)
    }
}
