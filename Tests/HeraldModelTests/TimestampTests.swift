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

    @Test("every RFC 3339 date-time is read (OpenAPI's format): lowercase t and z, any fraction length", arguments: [
        ("2026-11-24t23:38:27z", 1_795_563_507.0), ("2026-11-24T23:38:27.1234567891Z", 1_795_563_507.1234567891),
        ("2026-11-25T00:38:27-01:00", 1_795_563_507.0 + 7200),
    ])
    func rfc3339FormsAreRead(text: String, secondsSince1970: Double) throws {
        let date = try #require(HeraldJSON.parseTimestamp(text))
        #expect(abs(date.timeIntervalSince1970 - secondsSince1970) < 1e-5)
    }

    @Test("years before 1970 with odd offsets are read on the proleptic Gregorian calendar (the gateway refused them)")
    func earlyYearsAndOffsetsAreRead() throws {
        let local = try #require(HeraldJSON.parseTimestamp("0761-04-01T05:43:39.7438-23:49"))
        let utc = try #require(HeraldJSON.parseTimestamp("0761-04-01T05:43:39Z"))
        #expect(abs(local.timeIntervalSince(utc) - (23 * 3600 + 49 * 60 + 0.7438)) < 1e-4)
        let yearBefore = try #require(HeraldJSON.parseTimestamp("0760-04-01T05:43:39Z"))
        #expect(utc.timeIntervalSince(yearBefore) == 365 * 86_400)
        let march = try #require(HeraldJSON.parseTimestamp("0000-03-01T00:00:00Z"))
        let february = try #require(HeraldJSON.parseTimestamp("0000-02-28T00:00:00Z"))
        #expect(march.timeIntervalSince(february) == 2 * 86_400, "year 0 is a leap year")
        let epoch = try #require(HeraldJSON.parseTimestamp("1970-01-01T00:00:00Z"))
        #expect(try #require(HeraldJSON.parseTimestamp("1969-12-31T23:59:59Z")).timeIntervalSince(epoch) == -1)
    }

    @Test("whatever Herald writes it reads back: years before 1970, and instants past 9999 written as the last one")
    func everyWrittenTimestampIsRead() throws {
        let early = try #require(HeraldJSON.parseTimestamp("0761-04-01T05:43:39.743Z"))
        #expect(HeraldJSON.formatTimestamp(early) == "0761-04-01T05:43:39.743Z")
        #expect(HeraldJSON.formatTimestamp(try #require(HeraldJSON.parseTimestamp("0000-01-01T00:00:00Z"))) == "0000-01-01T00:00:00.000Z")
        #expect(HeraldJSON.formatTimestamp(try #require(HeraldJSON.parseTimestamp("1969-12-31T23:59:59.5Z"))) == "1969-12-31T23:59:59.500Z")
        let far = Date(timeIntervalSince1970: 253_402_300_800 + 600)
        #expect(HeraldJSON.formatTimestamp(far) == "9999-12-31T23:59:59.999Z")
        #expect(HeraldJSON.parseTimestamp(HeraldJSON.formatTimestamp(far)) != nil)
        #expect(HeraldJSON.formatTimestamp(Date(timeIntervalSince1970: -1e12)) == "0000-01-01T00:00:00.000Z")
    }

    @Test("text that is no timestamp is refused", arguments: [
        "", "Z", "not a timestamp", "2026-11-24 23:38:27Z", "2026-11-24T23:38:27,123Z", "2026-11-24T23:38:27",
        "2026-11-24T23:38:27.12aZ", "2026-11-24T23:38:27.Z", "٢٠٢٦-11-24T23:38:27Z", "2026-11-24T23:38:27+0100",
        "2026-02-29T00:00:00Z", "2026-11-24T24:00:00Z", "2026-11-24T23:38:27+24:00", "2026-11-24T23:38:27Zjunk",
    ])
    func nonTimestampsAreRefused(text: String) {
        #expect(HeraldJSON.parseTimestamp(text) == nil)
    }
}
