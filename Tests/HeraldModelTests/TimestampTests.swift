import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

@Suite("Timestamps on the wire")
struct TimestampTests {
    /// 10000-01-01T00:00:00Z in seconds since 1970.
    static let end = 253_402_300_800

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` for whole seconds since 1970 and a millisecond: the whole
    /// seconds by Foundation's format style (exact for whole seconds), the millisecond
    /// appended, so the expected text does not come from the code under test.
    static func text(seconds: Int, millisecond: Int) -> String {
        let whole = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt).format(Date(timeIntervalSince1970: Double(seconds)))
        let digits = String(millisecond)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    @Test("a timestamp read and written again five times, as five stages do, keeps its millisecond (10,000 generated)")
    func readAndWrittenAgainKeepsItsMillisecond() throws {
        var random = SeededRandom(seed: 23)
        for _ in 0..<10_000 {
            let original = Self.text(seconds: 1_700_000_000 + random.next(upTo: 200_000_000), millisecond: random.next(upTo: 1000))
            var current = original
            for _ in 0..<5 { current = HeraldJSON.formatTimestamp(try #require(HeraldJSON.parseTimestamp(current))) }
            #expect(current == original)
            if current != original { return }
        }
    }

    @Test("an instant of a whole millisecond is written as that millisecond, however it was computed (10,000 generated, 1970…9999)")
    func wholeMillisecondsAreWrittenAsThemselves() {
        var random = SeededRandom(seed: 29)
        for _ in 0..<10_000 {
            let seconds = random.next(upTo: Self.end), millisecond = random.next(upTo: 1000)
            let expected = Self.text(seconds: seconds, millisecond: millisecond)
            for date in [Date(timeIntervalSince1970: Double(seconds) + Double(millisecond) / 1000),
                         Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(millisecond) / 1000)] {
                #expect(HeraldJSON.formatTimestamp(date) == expected, "\(date.timeIntervalSince1970)")
                if HeraldJSON.formatTimestamp(date) != expected { return }
            }
        }
    }

    @Test("an instant between milliseconds is written truncated to its millisecond")
    func subMillisecondInstantsAreTruncated() {
        #expect(HeraldJSON.formatTimestamp(Date(timeIntervalSince1970: 1_795_563_507.1239)) == "2026-11-24T23:38:27.123Z")
        #expect(HeraldJSON.formatTimestamp(Date(timeIntervalSince1970: 1_795_563_507.9996)) == "2026-11-24T23:38:27.999Z")
        #expect(HeraldJSON.formatTimestamp(Date(timeIntervalSince1970: 1_795_563_507.0004)) == "2026-11-24T23:38:27.000Z")
        #expect(HeraldJSON.formatTimestamp(Date(timeIntervalSince1970: 951_782_399.5)) == "2000-02-28T23:59:59.500Z")
    }

    @Test("both of Herald's forms are read as the instant they name", arguments: [
        ("2026-11-24T23:38:27.123Z", 1_795_563_507_123), ("2026-11-24T23:38:27Z", 1_795_563_507_000),
        ("2000-02-29T12:00:00.001Z", 951_825_600_001), ("1970-01-01T00:00:00.000Z", 0), ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
    ])
    func heraldsFormsAreRead(text: String, millisecondsSince1970: Int) throws {
        let date = try #require(HeraldJSON.parseTimestamp(text))
        #expect(date == Date(timeIntervalSince1970: Double(millisecondsSince1970 / 1000) + Double(millisecondsSince1970 % 1000) / 1000)
            || date == Date(timeIntervalSinceReferenceDate: Double(millisecondsSince1970 / 1000 - 978_307_200) + Double(millisecondsSince1970 % 1000) / 1000))
    }

    @Test("other ISO-8601 forms are read as before: offsets, other fraction lengths, rolled-over fields", arguments: [
        ("2026-11-24T23:38:27.123+01:00", 1_795_559_907.123), ("2026-11-24T23:38:27.1Z", 1_795_563_507.1),
        ("2026-11-24T23:38:27.123456Z", 1_795_563_507.123456), ("2026-11-24T23:38:60Z", 1_795_563_540),
    ])
    func otherFormsAreRead(text: String, secondsSince1970: Double) throws {
        let date = try #require(HeraldJSON.parseTimestamp(text))
        #expect(abs(date.timeIntervalSince1970 - secondsSince1970) < 1e-5)
    }

    @Test("text that is no timestamp is refused", arguments: [
        "", "Z", "not a timestamp", "2026-11-24 23:38:27Z", "2026-11-24T23:38:27,123Z", "2026-11-24t23:38:27Z",
        "2026-11-24T23:38:27.12aZ", "2026-11-24T23:38:27.1234567891Z", "٢٠٢٦-11-24T23:38:27Z",
    ])
    func nonTimestampsAreRefused(text: String) {
        #expect(HeraldJSON.parseTimestamp(text) == nil)
    }
}
