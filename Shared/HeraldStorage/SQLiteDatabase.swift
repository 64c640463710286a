import Foundation
import GRDB

/// How Herald's stateful services keep their SQLite files: one file per service in its data
/// directory, a GRDB `DatabasePool` (WAL: readers never wait for the writer), a 5-second
/// busy timeout, and the service's migrations applied at open. One place, so Registration
/// and Preferences cannot drift apart.
public enum SQLiteDatabase {
    /// When a commit reaches the disk (SQLite's `synchronous` pragma, in WAL mode).
    public enum Durability: String, Sendable {
        /// Every commit is synced (`FULL`): a commit survives a power cut.
        case full = "FULL"
        /// Commits are synced at checkpoints (`NORMAL`): a power cut can undo the last
        /// commits, never corrupt the file, and a crash of the process loses nothing. For
        /// stores whose writes the broker redelivers when they are lost; writes that answer
        /// a client use `durableWrite`.
        case normal = "NORMAL"
    }

    /// The most a checkpointed WAL keeps on disk (`journal_size_limit`): a burst can grow
    /// the WAL past it, the next checkpoint truncates it back.
    public static let walSizeLimit = 64 << 20

    /// Opens (creating the directory and the file if needed) `fileName` in `directory` and
    /// migrates it. Files are in incremental auto-vacuum mode, so a prune can give freed
    /// pages back (`PRAGMA incremental_vacuum`); a file made before that mode is vacuumed
    /// into it once, here.
    public static func open(_ fileName: String, in directory: URL, durability: Durability = .full, migrator: DatabaseMigrator) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.rawValue)")
            try db.execute(sql: "PRAGMA journal_size_limit = \(walSizeLimit)")
        }
        let database = try DatabasePool(path: directory.appendingPathComponent(fileName).path, configuration: configuration)
        try database.writeWithoutTransaction { db in
            guard try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 else { return }
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute(sql: "VACUUM")
        }
        try migrator.migrate(database)
        return database
    }
}

extension DatabasePool {
    /// A write transaction synced to disk at its commit whatever the store's durability: for
    /// what a client was told is saved (a device registration, a key).
    public func durableWrite<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { db in
            let current = try String.fetchOne(db, sql: "PRAGMA synchronous") ?? "2"
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = \(current)") }
            var result: T?
            try db.inTransaction {
                result = try updates(db)
                return .commit
            }
            return result!
        }
    }
}
