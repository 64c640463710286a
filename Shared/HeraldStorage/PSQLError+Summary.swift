import PostgresNIO
import ServiceKit

extension PSQLError: SummarizedError {
    /// The server's SQLSTATE, with its message where that cannot echo a value the query
    /// carried (connection, authorization, catalog, resources, operator intervention,
    /// transaction rollback, integrity and syntax or access classes: those messages name objects; a data exception's, class
    /// 22, may quote the value it refused). Never the detail, which may quote a row. Without
    /// a server answer, the client-side failure (a refused or reset connection, a closed one).
    public var summary: String {
        if let info = serverInfo, let state = info[.sqlState] {
            let speaksOfObjects = ["08", "23", "25", "28", "3D", "40", "42", "53", "55", "57"].contains(String(state.prefix(2)))
            if speaksOfObjects, let message = info[.message] {
                return "PostgreSQL: \(message) (SQLSTATE \(state))"
            }
            return "PostgreSQL: \(Self.className(of: state)) (SQLSTATE \(state))"
        }
        // A connection's failure (a refused or reset socket, a TLS handshake) says nothing
        // of any query; other client-side failures are named by their code alone.
        if code == .connectionError || code == .failedToAddSSLHandler, let underlying {
            return "PostgreSQL: \(code): \(underlying)"
        }
        return "PostgreSQL: \(code)"
    }

    /// The name of a SQLSTATE's class (PostgreSQL's errcodes appendix), or "error".
    static func className(of state: String) -> String {
        switch state.prefix(2) {
        case "22": return "data exception"
        case "23": return "integrity constraint violation"
        case "28": return "invalid authorization specification"
        case "3D": return "invalid catalog name"
        case "40": return "transaction rollback"
        case "53": return "insufficient resources"
        case "54": return "program limit exceeded"
        case "57": return "operator intervention"
        case "58": return "system error"
        case "XX": return "internal error"
        default: return "error"
        }
    }
}
