import ServiceKit
import Foundation

/// Where a PostgreSQL database is: `postgres://user:password@host:port/database`
/// (`postgresql://` too; port 5432 by default; `?sslmode=`, default `prefer`, as libpq reads
/// it). Percent-escapes in the user and password are decoded.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// How much TLS is asked of the server, with libpq's meanings.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// In clear.
        case disable
        /// TLS when the server offers it, its certificate not checked; else in clear.
        case prefer
        /// TLS or no connection; the certificate is checked against `caFile` when one is
        /// given (as libpq does with a root certificate), else not at all.
        case require
        /// TLS, the certificate signed by `caFile` (or a CA of the system's store).
        case verifyCA = "verify-ca"
        /// As `verifyCA`, and the certificate names the URL's host.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// PEM file of the CA that signed the server's certificate (`HERALD_DATABASE_CA_FILE`).
    public var caFile: String?
    /// PEM files of a client certificate and its key, for servers that authenticate by it
    /// (`HERALD_DATABASE_CERT_FILE`, `HERALD_DATABASE_KEY_FILE`).
    public var certificateFile: String?
    public var keyFile: String?

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
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let known = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw StorageError("sslmode \(item.value ?? ""): use \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = known
            case "sslrootcert", "sslcert", "sslkey":
                // One way to name the files: the environment, as the broker's.
                let setting = ["sslrootcert": "HERALD_DATABASE_CA_FILE", "sslcert": "HERALD_DATABASE_CERT_FILE", "sslkey": "HERALD_DATABASE_KEY_FILE"][item.name]!
                throw StorageError("\(item.name) in the URL is not read: give the file as \(setting)")
            default:
                continue
            }
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        self.database = database
        self.tls = tls
    }

    /// The same URL with TLS files, refusing a CA where the mode would not check it.
    public func with(caFile: String?, certificateFile: String?, keyFile: String?) throws(StorageError) -> PostgresURL {
        if caFile != nil, tls == .disable || tls == .prefer {
            throw StorageError("HERALD_DATABASE_CA_FILE is set, but sslmode is \(tls.rawValue), which does not check the server's certificate: use sslmode=verify-full")
        }
        if (certificateFile == nil) != (keyFile == nil) {
            throw StorageError("a client certificate needs both HERALD_DATABASE_CERT_FILE and HERALD_DATABASE_KEY_FILE")
        }
        var copy = self
        copy.caFile = caFile
        copy.certificateFile = certificateFile
        copy.keyFile = keyFile
        return copy
    }

    /// The URL without its password, for logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" + (tls == .prefer ? "" : "?sslmode=\(tls.rawValue)") }
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
