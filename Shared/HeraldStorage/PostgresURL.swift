import ServiceKit
import Foundation

/// Where a PostgreSQL database is: `postgres://user:password@host:port/database`
/// (`postgresql://` too; port 5432 by default; `?sslmode=disable|prefer|require`, default
/// `prefer`). Percent-escapes in the user and password are decoded.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Reads `text`; the error says what is wrong (never echoing the password).
    public init(_ text: String) throws(StorageError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              scheme == "postgres" || scheme == "postgresql" else {
            throw StorageError("a PostgreSQL URL starts with postgres:// (postgres://user:password@host:5432/database)")
        }
        guard let host = components.host, !host.isEmpty else { throw StorageError("the PostgreSQL URL names no host") }
        guard let user = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw StorageError("the PostgreSQL URL names no user")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw StorageError("the PostgreSQL URL names no database (…/database)") }
        var tls = TLSMode.prefer
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            guard let known = TLSMode(rawValue: mode) else { throw StorageError("sslmode \(mode): use disable, prefer or require") }
            tls = known
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        self.database = database
        self.tls = tls
    }

    /// The URL without its password, for logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}

/// A store that cannot be opened or used as configured.
public struct StorageError: Error, Sendable, CustomStringConvertible, ResourceFailure {
    public var message: String
    /// True when the database cannot serve anything now (a connection the server ended),
    /// rather than the configuration or the input being wrong.
    public var isResourceUnavailable: Bool
    public init(_ message: String, unavailable: Bool = false) {
        self.message = message
        self.isResourceUnavailable = unavailable
    }
    public var description: String { message }
}
