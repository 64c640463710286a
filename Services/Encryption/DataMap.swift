import Foundation
import HeraldModel
import JSONKit

/// The data map an app receives (plain form), and its smaller variants for payloads over a
/// provider's limit:
///
/// - `full`: `herald`, `event`, `kind` and the event's data;
/// - `onlyKeys` (`children.updated`): `added`, `changed` and `removed` reduced to the JSON
///   array of their keys;
/// - `tooBig`: only the identifying fields (`id`, `path`, and keys ending in `Id`/`ID`);
/// - `hidden` (`hideData`): the identifying fields, never the data.
public enum DataMap {
    public enum Variant: String, Sendable, Hashable, CaseIterable {
        case full, onlyKeys, tooBig, hidden
    }

    /// Keys Herald writes itself; event data must not use them.
    public static let reservedKeys: Set<String> = ["herald", "event", "kind", "variant", "enc", "kid", "payload", "alert"]
    /// The data-map format version.
    public static let version = "1"
    /// The `children.updated` fields that `onlyKeys` reduces to their keys.
    static let childFields = ["added", "changed", "removed"]

    /// The variants to try, largest first, for an event of `kind`.
    public static func variants(kind: String, hideData: Bool) -> [Variant] {
        if hideData { return [.hidden] }
        switch kind {
        case "children.updated": return [.full, .onlyKeys, .tooBig]
        default: return [.full, .tooBig]
        }
    }

    /// The plain map of `variant` for an event.
    public static func plain(eventId: String, kind: String, data: [String: String], variant: Variant) -> [String: String] {
        var map: [String: String]
        switch variant {
        case .full:
            map = data
        case .onlyKeys:
            map = data
            for field in childFields {
                guard let text = data[field] else { continue }
                map[field] = keysOnly(text)
            }
        case .tooBig, .hidden:
            map = data.filter { isIdentifying($0.key) }
        }
        map["herald"] = version
        map["event"] = eventId
        map["kind"] = kind
        if variant != .full { map["variant"] = variant.rawValue }
        return map
    }

    /// Whether a data key identifies what the event is about, so the app can fetch it.
    public static func isIdentifying(_ key: String) -> Bool {
        key == "id" || key == "path" || key.hasSuffix("Id") || key.hasSuffix("ID")
    }

    /// `{"a":1,"b":2}` → `["a","b"]`; a list of keys (Webcom's SDK gives the removed children
    /// so) stays as it is; any other text is left out (`[]`).
    static func keysOnly(_ json: String) -> String {
        let parsed = try? JSONValue(json: Data(json.utf8))
        let keys = parsed?.objectValue?.keys.sorted() ?? parsed?.arrayValue?.compactMap(\.stringValue) ?? []
        return JSONValue.array(keys.map(JSONValue.string)).text
    }
}
