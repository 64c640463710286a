import Foundation
import HeraldModel

/// Where a page of a list ended: the last row's sort position (a time, as its store
/// compares it exactly) and id, base64url-encoded so a client passes it back unread.
struct PageCursor: Sendable, Hashable {
    var position: String
    var id: String

    init(position: String, id: String) {
        self.position = position
        self.id = id
    }

    /// The cursor a page answered with; anything else is `invalid-cursor` (400).
    init(encoded: String) throws {
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
              let split = text.firstIndex(of: "\n"), !text[..<split].isEmpty else {
            throw CommandError(code: "invalid-cursor", detail: "cursor: not a cursor this list answered with")
        }
        position = String(text[..<split])
        id = String(text[text.index(after: split)...])
    }

    var encoded: String {
        Data("\(position)\n\(id)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
