import Foundation
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldTestSupport
import Encryption
import FCM
import HMS
import Testing

/// Every field of the contracts a stage reads, replaced in turn by hostile or careless
/// values (numbers at and past their limits, huge and invalid strings, wrong types, deep
/// nesting): each body is either refused with a reason or read, and what is read goes
/// through the payload builder and the provider messages without a crash. The loops yield,
/// so these seconds of computation do not hold the few threads other tests' tasks need.
struct ExtremeValueTests {
    typealias S = PayloadSamples

    /// JSON tokens put in place of a field's value, as raw text.
    static let tokens: [String] = [
        "0", "-1", "1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "99999999999999999999999999", "1e308", "-1e308", "1e400", "0.5", "-0", "1E2",
        "null", "true", "false", "[]", "{}", "[1,2]", #"{"a":1}"#,
        #""""#, #""\u0000""#, #""\ud800""#, "\"\u{FF}\"", "\"" + String(repeating: "x", count: 100_000) + "\"",
        "\"" + String(repeating: "é", count: 10_000) + "\"",
        #""9999-12-31T23:59:59.999Z""#, #""0000-01-01T00:00:00Z""#, #""1970-01-01T00:00:00Z""#,
        #""2026-02-30T25:61:61Z""#, #""+275760-09-13T00:00:00Z""#,
        String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
    ]

    /// Invalid UTF-8 (a lone continuation byte and an overlong form) inside a string.
    static let invalidUTF8 = Data([0x22, 0x61, 0x80, 0xC0, 0xAF, 0x62, 0x22])

    /// The bodies: `sample` with each leaf (object member or array element, at any depth)
    /// replaced by each token, and by invalid UTF-8.
    static func mutations(of sample: Data) throws -> [Data] {
        let root = try JSONSerialization.jsonObject(with: sample)
        var bodies: [Data] = []
        let marker = "@@herald-extreme@@"
        for path in leafPaths(root, prefix: []) {
            let marked = try JSONSerialization.data(withJSONObject: replacing(root, at: path, with: marker), options: [.sortedKeys])
            let quoted = Data("\"\(marker)\"".utf8)
            guard let range = marked.range(of: quoted) else { continue }
            for token in tokens {
                var body = marked
                body.replaceSubrange(range, with: Data(token.utf8))
                bodies.append(body)
            }
            var body = marked
            body.replaceSubrange(range, with: invalidUTF8)
            bodies.append(body)
        }
        return bodies
    }

    private enum Step { case key(String), index(Int) }

    private static func leafPaths(_ value: Any, prefix: [Step]) -> [[Step]] {
        if let object = value as? [String: Any] {
            return object.keys.sorted().flatMap { leafPaths(object[$0]!, prefix: prefix + [.key($0)]) } + (prefix.isEmpty ? [] : [prefix])
        }
        if let array = value as? [Any] {
            return array.indices.flatMap { leafPaths(array[$0], prefix: prefix + [.index($0)]) } + [prefix]
        }
        return [prefix]
    }

    private static func replacing(_ value: Any, at path: [Step], with replacement: Any) -> Any {
        guard let step = path.first else { return replacement }
        switch step {
        case .key(let key):
            var object = value as! [String: Any]
            object[key] = replacing(object[key]!, at: Array(path.dropFirst()), with: replacement)
            return object
        case .index(let index):
            var array = value as! [Any]
            array[index] = replacing(array[index], at: Array(path.dropFirst()), with: replacement)
            return array
        }
    }

    /// Reads `body` as `T`: the value, or nil after checking the refusal names a reason.
    static func read<T: Contract>(_ type: T.Type, _ body: Data) -> T? {
        do {
            return try T.fromWireJSON(body)
        } catch {
            let reason = HeraldJSON.describe(error)
            #expect(!reason.isEmpty, "a \(T.self) was refused without a reason")
            return nil
        }
    }

    /// What a dispatcher does with a request it read: both providers' bodies, and the
    /// request written and read again.
    static func send(_ request: DispatchRequest) throws {
        _ = try FCMMessage(request, now: S.now).requestBody()
        _ = try HMSMessage(request, now: S.now).requestBody()
        _ = try DispatchRequest.fromWireJSON(request.wireJSON())
    }

    /// One delivery per integration and platform, each with every optional field set, so
    /// that every field is replaced.
    static let deliveries: [Delivery] = [
        S.smartIDAuth(S.device(.fcm, os: .android)), S.evernymMessage(S.device(.hms, os: .android)),
        S.upstraMessage(S.device(.fcm, os: .ios)), S.sudoEmail(S.device(.fcm, os: .ios)),
        S.webcomValue(S.device(.webhook, os: .other)),
    ].map { delivery in
        var delivery = delivery
        delivery.options.ttlSeconds = 600
        delivery.options.collapseKey = "c"
        delivery.options.priority = .high
        return delivery
    }

    @Test(arguments: deliveries.indices)
    func aDeliveryWithAnyFieldReplacedIsRefusedOrBuiltWithoutACrash(index: Int) async throws {
        let builder = PayloadBuilder(providers: .herald, sources: .herald)
        var read = 0
        for body in try Self.mutations(of: Self.deliveries[index].wireJSON()) {
            await Task.yield()
            guard let delivery = Self.read(Delivery.self, body) else { continue }
            read += 1
            _ = try Delivery.fromWireJSON(delivery.wireJSON())
            if case .dispatch(let request, _, _) = builder.build(delivery, now: S.now) { try Self.send(request) }
        }
        #expect(read > 0, "no mutation was readable: the mutations are not reaching the builder")
    }

    @Test(arguments: deliveries.indices)
    func aDispatchRequestWithAnyFieldReplacedIsRefusedOrSentWithoutACrash(index: Int) async throws {
        guard case .dispatch(let sample, _, _) = PayloadBuilder(providers: .herald, sources: .herald).build(Self.deliveries[index], now: S.now) else {
            Issue.record("the sample is not dispatched")
            return
        }
        for body in try Self.mutations(of: sample.wireJSON()) {
            await Task.yield()
            if let request = Self.read(DispatchRequest.self, body) { try Self.send(request) }
        }
    }

    /// Bytes flipped, inserted, dropped or repeated at random (seeded, so a failure repeats).
    @Test(arguments: deliveries.indices)
    func aRandomlyCorruptedDeliveryIsRefusedOrBuiltWithoutACrash(index: Int) async throws {
        let builder = PayloadBuilder(providers: .herald, sources: .herald)
        let sample = try Self.deliveries[index].wireJSON()
        var random = SeededRandom(seed: UInt64(index + 1))
        for _ in 0..<3_000 {
            await Task.yield()
            var body = [UInt8](sample)
            for _ in 0...random.next(upTo: 4) {
                let at = random.next(upTo: body.count)
                switch random.next(upTo: 4) {
                case 0: body[at] = UInt8(random.next(upTo: 256))
                case 1: body.insert(UInt8(random.next(upTo: 256)), at: at)
                case 2: body.remove(at: at)
                default: body.insert(contentsOf: body[at..<min(body.count, at + random.next(upTo: 40))], at: at)
                }
            }
            guard let delivery = Self.read(Delivery.self, Data(body)) else { continue }
            if case .dispatch(let request, _, _) = builder.build(delivery, now: S.now) { try Self.send(request) }
        }
    }

    @Test func anEventWithAnyFieldReplacedIsRefusedOrReadWithoutACrash() async throws {
        let event = NotificationEvent(
            id: "ev-1", app: "demo", source: .api, kind: "news", occurredAt: S.occurredAt, audience: .users(["u-1"]),
            context: ["a": "b"], data: ["k": "v"], alert: .literal(title: "t", body: "b"),
            options: DeliveryOptions(ttlSeconds: 60, priority: .high, collapseKey: "c", critical: true, encryption: .preferred, hideData: true))
        for body in try Self.mutations(of: event.wireJSON()) {
            await Task.yield()
            if let read = Self.read(NotificationEvent.self, body) { _ = try NotificationEvent.fromWireJSON(read.wireJSON()) }
        }
    }

    @Test func anOutcomeOrRevocationWithAnyFieldReplacedIsRefusedOrReadWithoutACrash() async throws {
        let outcome = Outcome(
            deliveryId: "d-1", eventId: "ev-1", app: "demo", status: .failed, reason: "r", providerCode: "c", at: S.now)
        for body in try Self.mutations(of: outcome.wireJSON()) {
            await Task.yield()
            if let read = Self.read(Outcome.self, body) { _ = try Outcome.fromWireJSON(read.wireJSON()) }
        }
        let revoked = TokenRevoked(
            app: "demo", platform: .fcm, token: "t", reason: "UNREGISTERED", deviceId: "d", failedSendAt: S.now, deliveryId: "d-1", eventId: "ev-1")
        for body in try Self.mutations(of: revoked.wireJSON()) {
            await Task.yield()
            _ = Self.read(TokenRevoked.self, body)
        }
    }
}
