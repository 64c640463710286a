import Foundation
import HeraldModel

/// The store Registration keeps, by concern, each in its folder with both backends' halves
/// side by side: devices (`DeviceStore`, Devices/), what audiences resolve to
/// (`AudienceStore`, Audience/), the state sources keep besides devices, Evernym's sponsees and email
/// addresses' keys (`SourceStateStore`, SourceState/), the
/// idempotency of events (`EventClaimStore`, EventClaims/), delivery outcomes
/// (`OutcomeStore`, Outcomes/), the event log (`EventLogStore`, EventLog/) and ingest URLs'
/// secrets (`IngestSecretStore`, IngestSecrets/); each stage asks for the parts it uses. Two
/// implementations of the whole (Store/): SQLite (`SQLiteRegistrationStore`, the default, one
/// process per file) and PostgreSQL (`PostgresRegistrationStore`, any number of replicas on
/// one database); `RegistrationStores` opens the one configured.
///
/// Across replicas the rules hold by constraints, not by reading first: a device id is one
/// row (last registration wins, so one user per device), a token belongs to one device, and
/// an event id is claimed by one process at a time.
public protocol RegistrationStore: DeviceStore, AudienceStore, SourceStateStore, EventClaimStore, OutcomeStore, EventLogStore, IngestSecretStore {
    /// Forgets processed event ids older than `window`, revocation audit rows older than
    /// `auditWindow`, and delivery outcomes and logged events older than `outcomeWindow`;
    /// returns how many of each.
    func prune(now: Date, window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval) async throws -> PruneCounts
    /// What the store takes: SQLite's pages in use, PostgreSQL's tables with their indexes.
    func storedBytes() async throws -> Int
    /// When the oldest logged event was accepted; nil with none logged.
    func oldestAcceptedAt() async throws -> Date?
}

/// How many rows a prune removed, by kind.
public struct PruneCounts: Sendable, Hashable {
    public var events: Int
    public var revocations: Int
    public var outcomes: Int
    /// Logged events (`GET /events`).
    public var logged: Int
}

extension RegistrationStore {
    @discardableResult
    public func prune(now: Date = Date(), window: TimeInterval, auditWindow: TimeInterval, outcomeWindow: TimeInterval = 7 * 24 * 3600) async throws -> PruneCounts {
        try await prune(now: now, window: window, auditWindow: auditWindow, outcomeWindow: outcomeWindow)
    }
}
