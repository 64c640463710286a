import Foundation
import HeraldModel
import HeraldTestSupport
import JSONKit
import Testing

@Suite("Contracts read and written without the coders")
struct WireJSONTests {
    /// Reads with `JSONReader` only (no fallback to the decoder), so a broken reader cannot
    /// hide behind the decoder.
    static func read<T: JSONReadable>(_ type: T.Type, _ data: Data) -> T? {
        JSONReader.read(data) { try T(reading: &$0) }
    }

    /// Each value is written byte for byte as the encoder writes it, and its encoding read
    /// (by the reader alone) as the decoder reads it; stops at the first difference.
    static func checkRoundTrips<T: Contract & JSONReadable & Equatable>(_ values: [T]) throws {
        for value in values {
            let encoded = try HeraldJSON.encode(value)
            let written = try value.wireJSON()
            #expect(written == encoded, "\(String(decoding: encoded, as: UTF8.self))")
            let read = Self.read(T.self, encoded)
            let decoded = try HeraldJSON.decode(T.self, from: encoded)
            #expect(read == decoded, "\(String(decoding: encoded, as: UTF8.self))")
            if written != encoded || read != decoded { return }
        }
    }

    @Test("2,000 generated deliveries: written as the encoder writes them, read as the decoder reads them")
    func generatedDeliveries() throws {
        var random = SeededRandom(seed: 7)
        try Self.checkRoundTrips((0..<2000).map { _ in Self.delivery(&random) })
    }

    @Test("2,000 generated dispatch requests: written as the encoder writes them, read as the decoder reads them")
    func generatedDispatchRequests() throws {
        var random = SeededRandom(seed: 11)
        try Self.checkRoundTrips((0..<2000).map { _ in Self.dispatch(&random) })
    }

    @Test("2,000 generated outcomes: written as the encoder writes them, read as the decoder reads them")
    func generatedOutcomes() throws {
        var random = SeededRandom(seed: 13)
        try Self.checkRoundTrips((0..<2000).map { _ in Outcome(
            deliveryId: Self.text(&random) + "d", eventId: Self.text(&random), app: Self.text(&random),
            status: OutcomeStatus.allCases[random.next(upTo: OutcomeStatus.allCases.count)],
            reason: Self.maybe(&random), providerCode: Self.maybe(&random), at: Self.date(&random)) })
    }

    @Test("2,000 generated events: written as the encoder writes them, read as the decoder reads them")
    func generatedEvents() throws {
        var random = SeededRandom(seed: 17)
        try Self.checkRoundTrips((0..<2000).map { _ in JSONWriterTests.event(&random) })
    }

    @Test("strings: ASCII, other UTF-8 and escapes read as the decoder reads them; invalid UTF-8 and control characters are refused")
    func strings() throws {
        for text in ["", "plain ascii 0123 ~", "é😀\u{2028}", "mixed é and ascii", "a\"b\\c/d\n\u{1}"] {
            let encoded = try HeraldJSON.encode([text])
            #expect(JSONReader.read(encoded) { try $0.strings() } == [text], "\(text)")
        }
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0x61, 0x0A, 0x22]] {
            #expect(JSONReader.read(Data(bytes)) { try $0.string() } == nil, "\(bytes)")
        }
    }

    @Test("events the decoder refuses (empty ids, two audience forms, an empty list) the reader refuses too",
          arguments: [
              #"{"id":"","app":"a","source":"api","kind":"k","occurredAt":"2026-11-21T09:30:00Z","audience":{"users":["u"]}}"#,
              #"{"id":"i","app":"a","source":"api","kind":"k","occurredAt":"2026-11-21T09:30:00Z","audience":{"users":["u"],"devices":["d"]}}"#,
              #"{"id":"i","app":"a","source":"api","kind":"k","occurredAt":"2026-11-21T09:30:00Z","audience":{"pushIds":[]}}"#,
              #"{"id":"i","app":"a","source":"api","kind":"k","occurredAt":"yesterday","audience":{"users":["u"]}}"#,
          ])
    func refusedEvents(_ text: String) {
        let data = Data(text.utf8)
        #expect(Self.read(NotificationEvent.self, data) == nil)
        #expect(throws: (any Error).self) { try HeraldJSON.decode(NotificationEvent.self, from: data) }
    }

    @Test("the golden fixtures, pretty-printed, are read as the decoder reads them")
    func fixtures() throws {
        for name in ["delivery.v1", "delivery.v1.email", "delivery.v1.webhook"] {
            let data = try Self.fixture(name)
            #expect(Self.read(Delivery.self, data) == (try HeraldJSON.decode(Delivery.self, from: data)), "\(name)")
        }
        let event = try Self.fixture("event.v1")
        #expect(Self.read(NotificationEvent.self, event) == (try HeraldJSON.decode(NotificationEvent.self, from: event)))
        let outcome = try Self.fixture("outcome.v1")
        #expect(Self.read(Outcome.self, outcome) == (try HeraldJSON.decode(Outcome.self, from: outcome)))
        for name in ["dispatch.v1", "dispatch.v1.webhook"] {
            let data = try Self.fixture(name)
            #expect(Self.read(DispatchRequest.self, data) == (try HeraldJSON.decode(DispatchRequest.self, from: data)), "\(name)")
        }
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures")
            ?? Bundle.module.url(forResource: name, withExtension: "json")))
    }

    @Test("escapes the encoder never writes (\\/, \\uXXXX, surrogate pairs) are read as the decoder reads them")
    func escapes() throws {
        let text = #"{"id":"a\/b\u00e9\ud83d\ude00\"\\\n\t\b\f\r\u0001","platform":"fcm","token":"t","os":"ios"}"#
        let read = Self.read(DeviceTarget.self, Data(text.utf8))
        #expect(read != nil)
        #expect(read == (try HeraldJSON.decode(DeviceTarget.self, from: Data(text.utf8))))
    }

    @Test("unknown members are skipped, whatever their value, as the decoder skips them")
    func unknownMembers() throws {
        let text = #"{"future":{"a":[1,-2.5e3,true,null,"x",{}]},"id":"d","platform":"hms","token":"t","os":"web","extra":[]}"#
        let read = Self.read(DeviceTarget.self, Data(text.utf8))
        #expect(read == DeviceTarget(id: "d", platform: .hms, token: "t", os: .web))
    }

    @Test("null for an optional member reads as absent; a present null title still makes a literal alert")
    func nulls() throws {
        let text = #"{"title":null,"body":"b","args":null}"#
        #expect(Self.read(Alert.self, Data(text.utf8)) == .literal(title: nil, body: "b"))
        #expect(Self.read(DeliveryOptions.self, Data(#"{"critical":null,"ttlSeconds":null}"#.utf8)) == DeliveryOptions())
    }

    @Test("what the decoder rejects the reader rejects too, and the decoder's error is what a caller sees",
          arguments: [
              #"{"id":"d","platform":"APNs!","token":"t","os":"ios"}"#,
              #"{"id":null,"platform":"fcm","token":"t","os":"ios"}"#,
              #"{"platform":"fcm","token":"t","os":"ios"}"#,
              #"{"id":"d","platform":"fcm","token":"t","os":"ios"} x"#,
              #"{"id":"d","platform":"fcm","token":"t","os":"ios","key":{"keyId":"k"}}"#,
              #"{"id":"d\ud800","platform":"fcm","token":"t","os":"ios"}"#,
              #"{"id":"d"#,
          ])
    func rejected(_ text: String) {
        let data = Data(text.utf8)
        #expect(Self.read(DeviceTarget.self, data) == nil)
        #expect(throws: (any Error).self) { try HeraldJSON.decode(DeviceTarget.self, from: data) }
    }

    @Test("numbers outside plain integers, negative TTLs and duplicate members are left to the decoder")
    func leftToTheDecoder() throws {
        for text in [#"{"ttlSeconds":1.5}"#, #"{"ttlSeconds":1e2}"#, #"{"ttlSeconds":-1}"#, #"{"ttlSeconds":012}"#,
                     #"{"ttlSeconds":99999999999999999999}"#, #"{"critical":true,"critical":false}"#] {
            #expect(Self.read(DeliveryOptions.self, Data(text.utf8)) == nil, "\(text)")
        }
    }

    @Test("a contract's wire decoding gives the decoder's error for a malformed body")
    func wireDecodingError() {
        let body = Data(#"{"deliveryId":"d"}"#.utf8)
        var wire: String?
        var coder: String?
        do { _ = try Delivery.fromWireJSON(body) } catch { wire = HeraldJSON.describe(error) }
        do { _ = try HeraldJSON.decode(Delivery.self, from: body) } catch { coder = HeraldJSON.describe(error) }
        #expect(wire != nil)
        #expect(wire == coder)
    }

    @Test("a pack of dispatch requests reads element by element")
    func pack() throws {
        let list = [ContractSamples.dispatch, ContractSamples.webhookDispatch]
        let body = try HeraldJSON.encode(list)
        #expect(try DispatchRequest.arrayFromWireJSON(body) == list)
        let read = JSONReader.read(body) { reader -> [DispatchRequest] in
            var elements: [DispatchRequest] = []
            try reader.array { elements.append(try DispatchRequest(reading: &$0)) }
            return elements
        }
        #expect(read == list)
    }

    // MARK: Generated values

    static func text(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "Z", "9", "-", ".", "/", "\"", "\\", "\n", "\u{1}", "é", "😀", " ", "_", "\u{7F}", "\u{2028}"]
        return (0..<random.next(upTo: 8)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
    }

    static func maybe(_ random: inout SeededRandom) -> String? {
        random.next(upTo: 2) == 0 ? nil : text(&random)
    }

    static func map(_ random: inout SeededRandom) -> [String: String] {
        Dictionary((0..<random.next(upTo: 4)).map { _ in (text(&random), text(&random)) }, uniquingKeysWith: { first, _ in first })
    }

    static func date(_ random: inout SeededRandom) -> Date {
        Date(timeIntervalSince1970: 1_795_000_000 + Double(random.next(upTo: 1_000_000)) / 1000)
    }

    static func recipient(_ random: inout SeededRandom) -> WebhookRecipient {
        WebhookRecipient(
            userId: maybe(&random),
            devices: random.next(upTo: 3) == 0 ? nil : (0..<random.next(upTo: 3)).map { _ in
                .init(deviceId: text(&random), platform: [.fcm, .hms, .apns][random.next(upTo: 3)], token: text(&random))
            },
            deviceId: maybe(&random), platform: [nil, .fcm, .hms][random.next(upTo: 3)],
            token: maybe(&random), sponseeId: maybe(&random), sponseeDetails: maybe(&random))
    }

    static func delivery(_ random: inout SeededRandom) -> Delivery {
        let event = JSONWriterTests.event(&random)
        let device = DeviceTarget(
            id: text(&random) + "d", platform: [Platform.fcm, .hms, .webhook][random.next(upTo: 3)], token: text(&random),
            os: DeviceOS.allCases[random.next(upTo: 4)], userId: maybe(&random), locale: maybe(&random),
            key: random.next(upTo: 2) == 0 ? nil : DeviceKey(keyId: text(&random), p256dh: text(&random), auth: text(&random)),
            recipient: random.next(upTo: 2) == 0 ? nil : recipient(&random))
        let addressKey = random.next(upTo: 3) == 0
            ? AddressKey(emailAddressId: text(&random), keyId: text(&random), publicKey: text(&random)) : nil
        return Delivery(event: event, device: device, addressKey: addressKey)
    }

    static func dispatch(_ random: inout SeededRandom) -> DispatchRequest {
        DispatchRequest(
            deliveryId: text(&random) + "x", eventId: text(&random), app: text(&random), kind: text(&random),
            platform: [Platform.fcm, .hms, .webhook][random.next(upTo: 3)], deviceId: text(&random), token: text(&random),
            os: DeviceOS.allCases[random.next(upTo: 4)], data: map(&random),
            notification: random.next(upTo: 2) == 0 ? nil : DispatchRequest.Notification(title: maybe(&random), body: maybe(&random)),
            ttlSeconds: random.next(upTo: 2) == 0 ? nil : random.next(upTo: DeliveryOptions.maximumTTL + 1),
            priority: random.next(upTo: 2) == 0 ? .high : .normal, collapseKey: maybe(&random),
            ios: random.next(upTo: 2) == 0 ? nil : DispatchRequest.IOSHints(mutableContent: random.next(upTo: 2) == 0, contentAvailable: random.next(upTo: 2) == 0),
            expiresAt: random.next(upTo: 2) == 0 ? nil : date(&random), attempt: 1 + random.next(upTo: 20),
            firstAttemptAt: random.next(upTo: 2) == 0 ? nil : date(&random),
            forward: random.next(upTo: 3) == 0 ? nil : DispatchRequest.WebhookForward(
                source: knownSources[random.next(upTo: knownSources.count)], occurredAt: date(&random),
                context: map(&random), recipient: recipient(&random)),
            notBefore: random.next(upTo: 3) == 0 ? date(&random) : nil,
            acceptedAt: random.next(upTo: 2) == 0 ? nil : date(&random))
    }
}

/// The sources Herald ships, for events made at random.
private let knownSources: [EventSource] = [.api, .smartID, .evernym, .upstra, .sudoEmail, .webcom, "a-source-of-tomorrow"]
