import Foundation
import ServiceLifecycle

/// A stateful service's store, opened: one case per backend, each with what that backend
/// needs, so a PostgreSQL store always comes with its connected database.
public enum OpenedStore: Sendable {
    /// SQLite files in this directory (one process per store).
    case sqlite(directory: URL)
    /// One PostgreSQL database, connected with the service's tables in its schema (any
    /// number of replicas).
    case postgres(PostgresPool)

    /// What the service runs as clients, so they close after the parts that use them: the
    /// pool of a PostgreSQL store.
    public var clients: [any Service] {
        switch self {
        case .sqlite: []
        case .postgres(let pool): [pool]
        }
    }

    /// Whether other replicas share this store (PostgreSQL), so each must tell the others
    /// what it changed.
    public var isShared: Bool {
        if case .postgres = self { true } else { false }
    }
}
