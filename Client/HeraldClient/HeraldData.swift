import Foundation

/// The data map of a push as the platforms hand it over, and the rule that tells Herald's
/// pushes from others'.
///
/// A Herald push's data map has `herald` (the format version, digits) and either `event`
/// and `kind` (plain) or `enc`, `kid` and `payload` (encrypted). See `docs/client.md`.
public enum HeraldData {
    /// The format version this kit reads.
    public static let version = "1"
    /// The keys Herald writes into the data map itself; the event's own data never uses them.
    public static let reservedKeys: Set<String> = ["herald", "event", "kind", "variant", "enc", "kid", "payload", "alert"]

    /// Whether `data` is a Herald push (of any format version).
    public static func isHerald(_ data: [String: String]) -> Bool {
        guard let version = data["herald"], !version.isEmpty, version.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        let encrypted = data["enc"] != nil && data["kid"] != nil && data["payload"] != nil
        let plain = data["event"] != nil && data["kind"] != nil
        return encrypted || plain
    }

    /// The string entries of an iOS `userInfo` (FCM puts the data map's entries at its top
    /// level, beside `aps`); other values are left out.
    public static func map(userInfo: [AnyHashable: Any]) -> [String: String] {
        var map: [String: String] = [:]
        for (key, value) in userInfo {
            if let key = key as? String, let value = value as? String { map[key] = value }
        }
        return map
    }

    /// The map Push Kit delivers as one JSON string (`RemoteMessage.getData()`), or nil when
    /// it is not a JSON object of strings.
    public static func map(pushKitData json: String) -> [String: String]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        var map: [String: String] = [:]
        for (key, value) in object {
            guard let text = value as? String else { return nil }
            map[key] = text
        }
        return map
    }
}

/// Whether a push's data map is Herald's: check it first, and hand anything else to the
/// code that handles the app's other pushes.
public func isHeraldNotification(_ data: [String: String]) -> Bool {
    HeraldData.isHerald(data)
}

/// Whether an iOS notification's `userInfo` carries a Herald data map.
public func isHeraldNotification(userInfo: [AnyHashable: Any]) -> Bool {
    HeraldData.isHerald(HeraldData.map(userInfo: userInfo))
}
