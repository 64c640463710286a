import Foundation
@testable import Gateway
import Testing

/// The gateway's memory of ids it accepted lately: a repeat inside the window is known, per
/// app, and the memory holds at most its capacity, forgetting the oldest first.
struct RecentEventsTests {
    let start = Date(timeIntervalSinceReferenceDate: 1_000_000)

    @Test func anIdAcceptedInsideTheWindowIsKnownForItsAppOnly() {
        let recent = RecentEvents(window: 600, capacity: 10)
        recent.insert(app: "demo", eventId: "e1", now: start)
        #expect(recent.contains(app: "demo", eventId: "e1", now: start.addingTimeInterval(599)))
        #expect(!recent.contains(app: "other", eventId: "e1", now: start))
        #expect(!recent.contains(app: "demo", eventId: "e2", now: start))
        // The app and the id are told apart, not run together.
        #expect(!recent.contains(app: "dem", eventId: "oe1", now: start))
    }

    @Test func anIdIsForgottenOnceTheWindowHasPassed() {
        let recent = RecentEvents(window: 600, capacity: 10)
        recent.insert(app: "demo", eventId: "e1", now: start)
        #expect(!recent.contains(app: "demo", eventId: "e1", now: start.addingTimeInterval(600)))
        recent.insert(app: "demo", eventId: "e2", now: start.addingTimeInterval(700))
        #expect(recent.count == 1)
    }

    @Test func aFullMemoryForgetsTheOldestFirst() {
        let recent = RecentEvents(window: 600, capacity: 3)
        for index in 0..<5 {
            recent.insert(app: "demo", eventId: "e\(index)", now: start.addingTimeInterval(Double(index)))
        }
        #expect(recent.count == 3)
        #expect(!recent.contains(app: "demo", eventId: "e0", now: start.addingTimeInterval(5)))
        #expect(!recent.contains(app: "demo", eventId: "e1", now: start.addingTimeInterval(5)))
        #expect((2..<5).allSatisfy { recent.contains(app: "demo", eventId: "e\($0)", now: start.addingTimeInterval(5)) })
    }

    @Test func anIdAcceptedAgainIsKeptFromItsLastAcceptance() {
        let recent = RecentEvents(window: 600, capacity: 3)
        recent.insert(app: "demo", eventId: "e0", now: start)
        recent.insert(app: "demo", eventId: "e1", now: start.addingTimeInterval(1))
        recent.insert(app: "demo", eventId: "e0", now: start.addingTimeInterval(2))
        // The first acceptance of e0 leaves; its second keeps it.
        recent.insert(app: "demo", eventId: "e2", now: start.addingTimeInterval(3))
        #expect(recent.contains(app: "demo", eventId: "e0", now: start.addingTimeInterval(400)))
        #expect(!recent.contains(app: "demo", eventId: "e0", now: start.addingTimeInterval(602)))
    }

    @Test func manyTimesItsCapacityPassThroughWithoutLosingTheLatest() {
        let recent = RecentEvents(window: 600, capacity: 1_000)
        for index in 0..<25_000 {
            recent.insert(app: "demo", eventId: "event-\(index)", now: start.addingTimeInterval(Double(index) / 1_000))
        }
        #expect(recent.count == 1_000)
        let now = start.addingTimeInterval(25)
        #expect((24_000..<25_000).allSatisfy { recent.contains(app: "demo", eventId: "event-\($0)", now: now) })
        #expect(!(0..<24_000).contains { recent.contains(app: "demo", eventId: "event-\($0)", now: now) })
    }
}
