import Foundation
import HeraldClient
import Synchronization

/// The Java client kit (`Client/android`) driven from the Swift suites through its test tool
/// (`KitTool`): keys made by the Java kit, and pushes opened by it, read back as the Swift
/// kit's own types so that both kits can be compared field by field. The kit is built once per
/// test process with `Client/android/build --no-tests` (javac, nothing else) into
/// `.build/android-tests`.
public enum JavaKit {
    /// Whether the Java kit can run here: javac and JUnit 4 are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/javac") && FileManager.default.fileExists(atPath: "/usr/share/java/junit4.jar")
    }

    /// A push as the app receives it: FCM's data map, or Push Kit's one data string.
    public enum Push: Sendable {
        case data([String: String])
        case pushKitData(String)

        /// The data map the app reads (Push Kit's string read as the Swift kit reads it).
        public var map: [String: String] {
            switch self {
            case .data(let map): return map
            case .pushKitData(let text): return HeraldData.map(pushKitData: text) ?? [:]
            }
        }

        var json: [String: Any] {
            switch self {
            case .data(let map): return ["data": map]
            case .pushKitData(let text): return ["pushKitData": text]
            }
        }
    }

    /// What the Java kit made of one push: the notification, or its error's reason and field.
    public enum Opened: Sendable, Equatable, CustomStringConvertible {
        case notification(HeraldNotification)
        case failure(reason: String, field: String?)

        public var description: String {
            switch self {
            case .notification(let push): return "opened \(push.kind) \(push.event)"
            case .failure(let reason, let field): return "failed \(reason) (\(field ?? "-"))"
            }
        }
    }

    /// What the Swift kit makes of `data` with `keyring`, in the same terms, to compare.
    public static func swiftOpened(_ data: [String: String], keyring: HeraldKeyring) -> Opened {
        do {
            return .notification(try HeraldNotificationDecoder(keyring: keyring).decode(data))
        } catch {
            return .failure(reason: error.reason.rawValue, field: error.field)
        }
    }

    /// A key the Java kit made: its stored form (for the Java keyring) and its registration body.
    public struct GeneratedKey: @unchecked Sendable {
        public var stored: [String: Any]
        public var registration: [String: Any]
    }

    private static let built = Mutex<Task<String, any Error>?>(nil)

    /// The class path of the kit and its test tool, built on first use.
    static func classPath() async throws -> String {
        let task = built.withLock { task in
            if let task { return task }
            let made = Task<String, any Error> {
                let root = PythonChecker.packageRoot
                let out = root.appendingPathComponent(".build/android-tests").path
                let (status, output) = try await runCommand("env", ["HERALD_ANDROID_BUILD=\(out)", "bash", root.appendingPathComponent("Client/android/build").path, "--no-tests"])
                guard status == 0 else { throw TestFailure("Client/android/build failed (\(status)): \(output)") }
                return "\(out)/classes:\(out)/test-classes"
            }
            task = made
            return made
        }
        return try await task.value
    }

    /// Runs KitTool on one request and returns its answer.
    public static func run(_ request: [String: Any]) async throws -> [String: Any] {
        let classPath = try await classPath()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("javakit-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, output) = try await runCommand("java", ["-cp", classPath, "org.herald.client.KitTool", file.path])
        guard status == 0, let last = output.split(separator: "\n").last,
              let reply = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw TestFailure("KitTool failed (\(status)): \(output.prefix(2000))")
        }
        return reply
    }

    /// Fresh keys made by the Java kit.
    public static func generate(deviceKeys: [String], addressKeys: [String]) async throws -> (devices: [GeneratedKey], addresses: [GeneratedKey]) {
        let reply = try await run(["op": "keygen", "deviceKeys": deviceKeys, "addressKeys": addressKeys])
        func keys(_ name: String) throws -> [GeneratedKey] {
            guard let list = reply[name] as? [[String: Any]] else { throw TestFailure("KitTool's keygen has no \(name)") }
            return try list.map { entry in
                guard let stored = entry["stored"] as? [String: Any], let registration = entry["registration"] as? [String: Any] else {
                    throw TestFailure("a generated key without stored form or registration")
                }
                return GeneratedKey(stored: stored, registration: registration)
            }
        }
        return (try keys("deviceKeys"), try keys("addressKeys"))
    }

    /// Opens `pushes` with the Java kit and a keyring of the stored keys given: device keys as
    /// `{keyId, privateKey, auth}` (the Swift kit's stored form), address keys as `{keyId,
    /// privateKey}` with a PEM.
    public static func open(_ pushes: [Push], deviceKeys: [[String: Any]] = [], addressKeys: [[String: Any]] = []) async throws -> [Opened] {
        let reply = try await run([
            "op": "open", "keyring": ["deviceKeys": deviceKeys, "addressKeys": addressKeys], "pushes": pushes.map(\.json),
        ])
        guard let results = reply["results"] as? [[String: Any]], results.count == pushes.count else {
            throw TestFailure("KitTool answered \(pushes.count) pushes with \((reply["results"] as? [Any])?.count ?? 0) results")
        }
        return try results.map { result in
            if let error = result["error"] as? [String: Any] {
                guard let reason = error["reason"] as? String else { throw TestFailure("an error without reason") }
                return .failure(reason: reason, field: error["field"] as? String)
            }
            guard let canonical = result["notification"] as? [String: Any] else { throw TestFailure("a result without notification or error") }
            return .notification(try notification(canonical))
        }
    }

    /// The Swift kit's stored forms of its keys, for the Java keyring.
    public static func stored(_ key: DeviceKeyPair) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(key)) as? [String: Any] else { throw TestFailure("a device key that does not encode") }
        return object
    }

    public static func stored(_ key: AddressKeyPair) -> [String: Any] {
        ["keyId": key.keyId, "privateKey": key.key.pem]
    }

    // MARK: KitTool's canonical form, read strictly into the Swift kit's types

    static func notification(_ object: [String: Any]) throws -> HeraldNotification {
        let reader = Reader(object)
        guard let variant = HeraldNotification.Variant(rawValue: try reader.string("variant")) else { throw TestFailure("unknown variant in \(object)") }
        let encryptionReader = Reader(try reader.object("encryption"))
        let encryption: HeraldNotification.Encryption
        switch try encryptionReader.string("scheme") {
        case "none": encryption = .none
        case "aes128gcm": encryption = .aes128gcm(keyId: try encryptionReader.string("keyId"))
        case "jwe": encryption = .jwe(keyId: try encryptionReader.string("keyId"))
        case let other: throw TestFailure("unknown scheme \(other)")
        }
        let alert = try reader.optionalObject("alert").map { fields in
            let alert = Reader(fields)
            return HeraldAlert(title: try alert.optionalString("title"), body: try alert.optionalString("body"))
        }
        guard let data = try reader.object("data") as? [String: String] else { throw TestFailure("data that is not a map of strings") }
        return HeraldNotification(
            eventId: try reader.string("eventId"), kind: try reader.string("kind"), variant: variant, encryption: encryption,
            alert: alert, event: try event(try reader.object("event")), data: data)
    }

    static func event(_ object: [String: Any]) throws -> HeraldEvent {
        let r = Reader(object)
        func chat() throws -> ChatEvent {
            let type = try r.optionalString("messageType")
            guard let messageType = type.map({ ChatEvent.MessageType(rawValue: $0) }) ?? .some(nil) else { throw TestFailure("unknown message type \(type ?? "")") }
            return ChatEvent(channelId: try r.string("channelId"), actorId: try r.string("actorId"), messageType: messageType)
        }
        switch try r.string("type") {
        case "authenticationRequest":
            let type: AuthenticationRequest.RequestType
            switch try r.string("requestType") {
            case "auth": type = .authentication
            case "sign": type = .signing
            case let other: throw TestFailure("unknown request type \(other)")
            }
            return .authenticationRequest(AuthenticationRequest(
                type: type, messageId: try r.string("messageId"), requestor: try r.optionalString("requestor"), pushId: try r.optionalString("pushId")))
        case "sponsorMessage":
            return .sponsorMessage(SponsorMessage(
                msgId: try r.string("msgId"), msgType: try r.optionalString("msgType"), relationshipDid: try r.optionalString("relationshipDid"),
                senderName: try r.optionalString("senderName")))
        case "chatChannelCreated": return .chatChannelCreated(try chat())
        case "chatMemberJoined": return .chatMemberJoined(try chat())
        case "chatMessage": return .chatMessage(try chat())
        case "emailReceived":
            return .emailReceived(EmailReceived(
                emailAddressId: try r.string("emailAddressId"), sudoId: try r.string("sudoId"), messageId: try r.string("messageId"),
                owner: try r.optionalString("owner"), from: try r.optionalString("from"), subject: try r.optionalString("subject"),
                receivedAt: try r.optionalString("receivedAt")))
        case "valueChanged":
            let content = Reader(try r.object("content"))
            let value: ValueChange.Content
            switch try content.string("type") {
            case "value": value = .value(try content.optionalString("json"))
            case "hidden": value = .hidden
            case "tooBig": value = .tooBig
            case let other: throw TestFailure("unknown value content \(other)")
            }
            return .valueChanged(ValueChange(path: try r.string("path"), content: value, appId: try r.optionalString("appId")))
        case "childrenUpdated":
            let content = Reader(try r.object("content"))
            let children: ChildrenUpdate.Content
            switch try content.string("type") {
            case "children":
                children = .children(added: try content.optionalString("added"), changed: try content.optionalString("changed"), removed: try content.optionalString("removed"))
            case "keys":
                children = .keys(added: try content.strings("added"), changed: try content.strings("changed"), removed: try content.strings("removed"))
            case "hidden": children = .hidden
            case "tooBig": children = .tooBig
            case let other: throw TestFailure("unknown children content \(other)")
            }
            return .childrenUpdated(ChildrenUpdate(path: try r.string("path"), content: children, appId: try r.optionalString("appId")))
        case "subscriptionRevoked":
            return .subscriptionRevoked(SubscriptionRevocation(path: try r.string("path"), reason: try r.optionalString("reason"), appId: try r.optionalString("appId")))
        case "other":
            return .other(kind: try r.string("kind"))
        case let other:
            throw TestFailure("unknown event type \(other)")
        }
    }

    /// Reads an object whose every key must be present (null where the value is absent).
    struct Reader {
        let object: [String: Any]
        init(_ object: [String: Any]) { self.object = object }

        func value(_ key: String) throws -> Any {
            guard let value = object[key] else { throw TestFailure("KitTool's canonical form lacks \(key): \(object)") }
            return value
        }

        func string(_ key: String) throws -> String {
            guard let text = try value(key) as? String else { throw TestFailure("\(key) is not a string in \(object)") }
            return text
        }

        func optionalString(_ key: String) throws -> String? {
            let value = try value(key)
            if value is NSNull { return nil }
            guard let text = value as? String else { throw TestFailure("\(key) is not a string or null in \(object)") }
            return text
        }

        func object(_ key: String) throws -> [String: Any] {
            guard let nested = try value(key) as? [String: Any] else { throw TestFailure("\(key) is not an object in \(object)") }
            return nested
        }

        func optionalObject(_ key: String) throws -> [String: Any]? {
            let value = try value(key)
            if value is NSNull { return nil }
            guard let nested = value as? [String: Any] else { throw TestFailure("\(key) is not an object or null in \(object)") }
            return nested
        }

        func strings(_ key: String) throws -> [String] {
            guard let list = try value(key) as? [String] else { throw TestFailure("\(key) is not a list of strings in \(object)") }
            return list
        }
    }
}
