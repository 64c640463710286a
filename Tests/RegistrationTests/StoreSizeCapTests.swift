import Foundation
import HeraldModel
import HeraldStorage
import HeraldTestSupport
import Logging
import ServiceKit
@testable import Registration
import Testing

/// `HERALD_EVENT_LOG_MAX_BYTES`: when Registration's store grows past it, the oldest history
/// goes first, whatever the retention says, and the newest stays.
struct StoreSizeCapTests {
    typealias S = RegistrySamples

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func fill(_ store: any RegistrationStore, events: Int) async throws {
        for start in stride(from: 0, to: events, by: 500) {
            let batch = (start..<min(events, start + 500)).map { n in
                LoggedEvent(app: "a", eventId: "event-\(n)-with-an-id-as-long-as-a-uuid-is", source: "api", kind: "chat.message",
                            acceptedAt: t0.addingTimeInterval(Double(n)), deliveries: 1)
            }
            try await store.logEvents(batch)
        }
    }

    @Test(arguments: StoreBackend.available)
    func aStoreOverTheCapLosesItsOldestEventsFirst(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.fill(store, events: 6000)
        let size = try await store.storedBytes()
        let pruner = RegistrationPruner(store: store, maxBytes: size / 2, logger: Logger(label: "test"))

        let trimmed = try await pruner.enforceCap(now: Self.t0.addingTimeInterval(6000))
        #expect(trimmed > 0)
        let kept = try await store.events(app: "a", EventQuery(limit: 500)).events
        #expect(kept.first?.eventId == "event-5999-with-an-id-as-long-as-a-uuid-is")
        let oldest = try #require(try await store.oldestAcceptedAt())
        #expect(oldest > Self.t0.addingTimeInterval(1000))
        #expect(try await store.events(app: "a", EventQuery(eventId: "event-0-with-an-id-as-long-as-a-uuid-is")).events.isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func aStoreUnderTheCapLosesNothing(_ backend: StoreBackend) async throws {
        let (store, directory) = try await S.store(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.fill(store, events: 100)
        let pruner = RegistrationPruner(store: store, maxBytes: try await store.storedBytes() * 2, logger: Logger(label: "test"))
        #expect(try await pruner.enforceCap(now: Self.t0.addingTimeInterval(100)) == 0)
        #expect(try await store.oldestAcceptedAt() == Self.t0)
    }

    @Test func theCapIsReadInBytesOrWithAUnit() async throws {
        let (store, directory) = try await S.store(.sqlite)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test")
        #expect(try RegistrationPruner.fromEnvironment([:], store: store, logger: logger).maxBytes == nil)
        #expect(try RegistrationPruner.fromEnvironment(["HERALD_EVENT_LOG_MAX_BYTES": "5G"], store: store, logger: logger).maxBytes == 5 << 30)
        #expect(try RegistrationPruner.fromEnvironment(["HERALD_EVENT_LOG_MAX_BYTES": "1048576"], store: store, logger: logger).maxBytes == 1 << 20)
        #expect(try RegistrationPruner.fromEnvironment(["HERALD_EVENT_LOG_MAX_BYTES": "512M"], store: store, logger: logger).interval == .seconds(60))
        let error = #expect(throws: ConfigurationError.self) {
            _ = try RegistrationPruner.fromEnvironment(["HERALD_EVENT_LOG_MAX_BYTES": "lots"], store: store, logger: logger)
        }
        #expect(error?.setting == "HERALD_EVENT_LOG_MAX_BYTES")
    }
}
