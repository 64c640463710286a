import Foundation
import GRDB

/// How Herald's stateful services keep their SQLite files: one file per service in its data
/// directory, a GRDB `DatabasePool` (WAL: readers never wait for the writer), a 5-second
/// busy timeout, and the service's migrations applied at open. One place, so Registration
/// and Preferences cannot drift apart.
public enum SQLiteDatabase {
    /// Opens (creating the directory and the file if needed) `fileName` in `directory` and
    /// migrates it.
    public static func open(_ fileName: String, in directory: URL, migrator: DatabaseMigrator) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let database = try DatabasePool(path: directory.appendingPathComponent(fileName).path, configuration: configuration)
        try migrator.migrate(database)
        return database
    }
}
