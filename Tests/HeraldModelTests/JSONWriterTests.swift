import Foundation
import HeraldModel
import HeraldTestSupport
import JSONKit
import Testing

@Suite("Writing contracts without JSONEncoder")
struct JSONWriterTests {
    /// Text with every character class the encoder treats specially.
    static let awkward = "a\"b\\c/d\u{0}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F} é😀\u{2028}"

    @Test("a string with quotes, backslashes, slashes and control characters is written as the encoder writes it")
    func escaping() throws {
        var json = JSONWriter()
        json.strings([Self.awkward, "", "plain"])
        #expect(json.data == (try HeraldJSON.encode([Self.awkward, "", "plain"])))
    }

    @Test("map keys come out in the encoder's sorted order")
    func sortedKeys() throws {
        let map = ["a10": "1", "a9": "2", "B": "3", "a": "4", "_x": "5", "é": "6", "a-b": "7", "": "8", Self.awkward: "9"]
        var json = JSONWriter()
        json.stringMap(map)
        #expect(json.data == (try HeraldJSON.encode(map)))
    }

    @Test("the sample event's wire JSON equals its encoding")
    func sampleEvent() throws {
        #expect(try ContractSamples.event.wireJSON() == HeraldJSON.encode(ContractSamples.event))
    }

    @Test("2,000 generated events: wire JSON equals the encoder's bytes for every audience, alert and option form")
    func generatedEvents() throws {
        var random = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            let event = Self.event(&random)
            let written = try event.wireJSON()
            let encoded = try HeraldJSON.encode(event)
            #expect(written == encoded, "\(String(decoding: encoded, as: UTF8.self))")
            if written != encoded { return }
        }
    }

    static func event(_ random: inout SeededRandom) -> NotificationEvent {
        func text() -> String {
            let pieces = ["a", "Z", "9", "-", ".", "/", "\"", "\\", "\n", "\u{1}", "é", "😀", " ", "_"]
            return String((0..<random.next(upTo: 8)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined())
        }
        func map() -> [String: String] {
            Dictionary((0..<random.next(upTo: 4)).map { _ in (text(), text()) }, uniquingKeysWith: { first, _ in first })
        }
        func list() -> [String] { (0...random.next(upTo: 3)).map { _ in text() } }
        let audience: Audience = switch random.next(upTo: 5) {
        case 0: .users(list())
        case 1: .pushIds(list())
        case 2: .devices(list())
        case 3: .tokens(list().map { DirectToken(platform: random.next(upTo: 2) == 0 ? .fcm : .hms, token: $0) })
        default: .emailAddressId(text())
        }
        let alert: Alert? = switch random.next(upTo: 4) {
        case 0: nil
        case 1: .template(name: text(), args: map())
        case 2: .literal(title: random.next(upTo: 2) == 0 ? nil : text(), body: text())
        default: .literal(title: text(), body: nil)
        }
        let options = DeliveryOptions(
            ttlSeconds: random.next(upTo: 2) == 0 ? nil : random.next(upTo: 100_000),
            priority: [nil, .high, .normal][random.next(upTo: 3)],
            collapseKey: random.next(upTo: 2) == 0 ? nil : text(),
            critical: random.next(upTo: 2) == 0,
            encryption: [nil, .required, .preferred, EncryptionPolicy.none][random.next(upTo: 4)],
            hideData: random.next(upTo: 2) == 0)
        return NotificationEvent(
            id: text() + "id", app: text() + "app", source: knownSources[random.next(upTo: knownSources.count)],
            kind: text() + "k", occurredAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(random.next(upTo: 1_000_000)) / 1000),
            audience: audience, context: map(), data: map(), alert: alert, options: options,
            acceptedAt: random.next(upTo: 2) == 0 ? nil : Date(timeIntervalSince1970: 1_795_000_000 + Double(random.next(upTo: 1_000_000)) / 1000))
    }
}

/// The sources Herald ships, for events made at random.
private let knownSources: [EventSource] = [.api, .smartID, .evernym, .upstra, .sudoEmail, .webcom, "a-source-of-tomorrow"]
