import DispatchKit
import Foundation
import Testing

/// The replica set's record of delivered ids (pure: dates given).
struct SentRecordTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aDeliveredIdIsRememberedForTheWindowAndThenForgotten() {
        let record = SentRecord(window: .seconds(600))
        record.insert("d1", at: now)
        #expect(record.contains("d1", now: now))
        #expect(record.contains("d1", now: now.addingTimeInterval(540)))
        #expect(!record.contains("d1", now: now.addingTimeInterval(720)), "past the window (ten minutes, counted in whole minutes)")
        #expect(!record.contains("d2", now: now))
    }

    @Test func oldMinutesAreDroppedAsTheWindowMovesOn() {
        let record = SentRecord(window: .seconds(120))
        for minute in 0..<30 { record.insert("d\(minute)", at: now.addingTimeInterval(Double(minute) * 60)) }
        #expect(record.count <= 5, "only the last few minutes are kept: \(record.count)")
        #expect(record.contains("d29", now: now.addingTimeInterval(29 * 60)))
    }
}
