import HeraldModel

/// Where Preferences keeps its settings: SQLite (`SQLitePreferenceStorage`, the default, one
/// process per file) or PostgreSQL (`PostgresPreferenceStorage`, several replicas on one
/// database). `PreferenceStore` keeps the in-memory view over either.
public protocol PreferenceStorage: Sendable {
    /// Every stored entry, to build the view at start.
    func loadAll() async throws -> [VersionedEntry]
    /// One entry as stored now (nil: never set), to refresh the view after another replica
    /// changed it.
    func load(_ key: PreferenceEntry.Key) async throws -> VersionedEntry?
    /// Writes an entry (insert or replace) and returns it with its new version.
    func save(_ entry: PreferenceEntry) async throws -> VersionedEntry
    /// Changes a device's configuration as stored (read, change, write as one step against
    /// concurrent changes of the same device, from any replica) and returns the result.
    func updateConfiguration(app: String, deviceId: String, _ change: @escaping @Sendable (inout NotificationConfiguration) throws -> Void) async throws -> VersionedEntry
}
