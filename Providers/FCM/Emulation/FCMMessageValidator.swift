import Foundation
import ProviderEmulation
import HeraldModel

/// Validates an FCM HTTP v1 `messages:send` body as strictly as FCM does: known fields only
/// (snake_case or lowerCamelCase, as proto JSON allows), exactly one target, string-only
/// data without reserved keys, a well-formed `android.ttl` within four weeks, a known
/// priority, and the 4096-byte data limit (2048 for topics).
struct FCMMessageValidator {
    struct Invalid: Error, Equatable {
        var field: String
        var message: String
    }

    enum Target: Equatable {
        case token(String), topic(String), condition(String)
    }

    struct Valid {
        var message: [String: Any]
        var target: Target
        var validateOnly: Bool
    }

    static let maxTTLSeconds = 2_419_200.0
    private static let reservedKeys: Set<String> = ["from", "message_type"]
    private static let reservedPrefixes = ["google.", "gcm.notification."]

    static func validate(body: Data) throws(Invalid) -> Valid {
        guard let object = try? JSONSerialization.jsonObject(with: body), let root = object as? [String: Any] else {
            throw Invalid(field: "", message: "Invalid JSON payload received. Expected an object with a \"message\".")
        }
        try knownFields(root, at: "", ["message", "validate_only", "validateOnly"])
        guard let message = root["message"] as? [String: Any] else {
            throw Invalid(field: "message", message: "Invalid JSON payload received. \"message\" is required and must be an object.")
        }
        let validateOnly = try bool(root["validate_only"] ?? root["validateOnly"], at: "validate_only") ?? false
        try knownFields(message, at: "message", [
            "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions",
            "token", "topic", "condition",
        ])
        var targets: [Target] = []
        for key in ["token", "topic", "condition"] {
            guard let value = message[key] else { continue }
            guard let text = value as? String else { throw typeError("message.\(key)", "TYPE_STRING", value) }
            switch key {
            case "token": targets.append(.token(text))
            case "topic": targets.append(.topic(text))
            default: targets.append(.condition(text))
            }
        }
        guard let target = targets.first else {
            throw Invalid(field: "message", message: "Recipient of the message is not set.")
        }
        guard targets.count == 1 else {
            throw Invalid(field: "message", message: "Invalid JSON payload received. Oneof field 'target' is already set. Cannot set more than one of token, topic, condition.")
        }
        if case .token(let token) = target, token.isEmpty {
            throw Invalid(field: "message.token", message: "The registration token is not a valid FCM registration token")
        }
        if case .topic(let topic) = target, topic.isEmpty || !topic.utf8.allSatisfy(isTopicCharacter) {
            throw Invalid(field: "message.topic", message: "Invalid topic name \(topic)")
        }

        var dataSize = 0
        if let data = message["data"] {
            dataSize += try stringMap(data, at: "message.data", checkReserved: true)
        }
        if let notification = message["notification"] {
            guard let object = notification as? [String: Any] else { throw typeError("message.notification", "TYPE_MESSAGE", notification) }
            try knownFields(object, at: "message.notification", ["title", "body", "image"])
            for (key, value) in object where !(value is String) { throw typeError("message.notification.\(key)", "TYPE_STRING", value) }
        }
        if let android = message["android"] {
            guard let object = android as? [String: Any] else { throw typeError("message.android", "TYPE_MESSAGE", android) }
            try knownFields(object, at: "message.android", [
                "collapse_key", "collapseKey", "priority", "ttl", "restricted_package_name", "restrictedPackageName",
                "data", "notification", "fcm_options", "fcmOptions", "direct_boot_ok", "directBootOk",
            ])
            if let priority = object["priority"] {
                guard let text = priority as? String, ["NORMAL", "HIGH"].contains(text.uppercased()) else {
                    throw Invalid(field: "message.android.priority", message: "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidConfig.AndroidMessagePriority), \(describe(priority))")
                }
            }
            if let ttl = object["ttl"] { try validateTTL(ttl) }
            for key in ["collapse_key", "collapseKey", "restricted_package_name", "restrictedPackageName"] {
                if let value = object[key], !(value is String) { throw typeError("message.android.\(key)", "TYPE_STRING", value) }
            }
            if let data = object["data"] { dataSize += try stringMap(data, at: "message.android.data", checkReserved: true) }
        }
        if let apns = message["apns"] {
            guard let object = apns as? [String: Any] else { throw typeError("message.apns", "TYPE_MESSAGE", apns) }
            try knownFields(object, at: "message.apns", ["headers", "payload", "fcm_options", "fcmOptions", "live_activity_token", "liveActivityToken"])
            if let headers = object["headers"] {
                _ = try stringMap(headers, at: "message.apns.headers", checkReserved: false)
                if let priority = (headers as? [String: Any])?["apns-priority"] as? String, !["5", "10", "1"].contains(priority) {
                    throw Invalid(field: "message.apns.headers", message: "Invalid APNs header apns-priority: \(priority)")
                }
            }
            if let payload = object["payload"], !(payload is [String: Any]) { throw typeError("message.apns.payload", "TYPE_MESSAGE", payload) }
        }
        if let webpush = message["webpush"], !(webpush is [String: Any]) { throw typeError("message.webpush", "TYPE_MESSAGE", webpush) }

        let limit: Int
        if case .token = target { limit = 4096 } else { limit = 2048 }
        if dataSize > limit {
            throw Invalid(field: "message", message: "Message is too big: its data has \(dataSize) bytes, the limit is \(limit).")
        }
        return Valid(message: message, target: target, validateOnly: validateOnly)
    }

    private static func knownFields(_ object: [String: Any], at path: String, _ known: Set<String>) throws(Invalid) {
        for key in object.keys.sorted() where !known.contains(key) {
            throw Invalid(field: path.isEmpty ? key : "\(path).\(key)", message: "Invalid JSON payload received. Unknown name \"\(key)\"\(path.isEmpty ? "" : " at '\(path)'"): Cannot find field.")
        }
    }

    /// Checks a string→string map and returns the byte size of its keys and values.
    private static func stringMap(_ value: Any, at path: String, checkReserved: Bool) throws(Invalid) -> Int {
        guard let map = value as? [String: Any] else { throw typeError(path, "TYPE_MESSAGE", value) }
        var size = 0
        for (index, key) in map.keys.sorted().enumerated() {
            let entry = map[key]!
            guard let text = entry as? String else {
                throw Invalid(field: "\(path)[\(index)].value", message: "Invalid value at '\(path)[\(index)].value' (TYPE_STRING), \(describe(entry))")
            }
            if checkReserved, reservedKeys.contains(key) || reservedPrefixes.contains(where: key.hasPrefix) {
                throw Invalid(field: path, message: "Invalid data payload key: \(key) is reserved.")
            }
            size += key.utf8.count + text.utf8.count
        }
        return size
    }

    /// `[a-zA-Z0-9-_.~%]`
    private static func isTopicCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    /// The seconds of a proto3 JSON duration with the `s` suffix: digits, optionally a dot
    /// and 1 to 9 more digits (`3s`, `3.5s`, `3.500000000s`).
    static func durationSeconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.last == UInt8(ascii: "s") else { return nil }
        let number = bytes.dropLast()
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        if let dot = number.firstIndex(of: UInt8(ascii: ".")) {
            let whole = number[..<dot]
            let fraction = number[(dot + 1)...]
            guard !whole.isEmpty, whole.allSatisfy(isDigit), (1...9).contains(fraction.count), fraction.allSatisfy(isDigit) else { return nil }
        } else {
            guard !number.isEmpty, number.allSatisfy(isDigit) else { return nil }
        }
        return Double(String(decoding: number, as: UTF8.self))
    }

    private static func validateTTL(_ value: Any) throws(Invalid) {
        let field = "message.android.ttl"
        guard let text = value as? String, let seconds = durationSeconds(text) else {
            throw Invalid(field: field, message: "Invalid value at '\(field)' (type.googleapis.com/google.protobuf.Duration), \(describe(value))")
        }
        guard seconds <= maxTTLSeconds else {
            throw Invalid(field: field, message: "Invalid value at '\(field)': must be between 0s and 2419200s, got \(text)")
        }
    }

    private static func bool(_ value: Any?, at path: String) throws(Invalid) -> Bool? {
        guard let value else { return nil }
        guard HeraldJSON.isBoolean(value), let flag = value as? Bool else { throw typeError(path, "TYPE_BOOL", value) }
        return flag
    }

    private static func typeError(_ path: String, _ type: String, _ value: Any) -> Invalid {
        Invalid(field: path, message: "Invalid value at '\(path)' (\(type)), \(describe(value))")
    }

    static func describe(_ value: Any) -> String {
        if let text = value as? String { return "\"\(text)\"" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}
