import GRDB
import ServiceKit

extension DatabaseError: ResourceFailure {
    /// The disk is full, the file cannot be read or written or opened, memory ran out, or
    /// the database stayed locked past the busy timeout: nothing the input did, and likely
    /// to pass. A constraint, a schema or a misuse error is not.
    public var isResourceUnavailable: Bool {
        switch resultCode {
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_NOMEM, .SQLITE_BUSY, .SQLITE_LOCKED: true
        default: false
        }
    }
}
