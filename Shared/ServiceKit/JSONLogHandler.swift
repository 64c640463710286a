import Foundation
import JSONKit
import Logging
import Synchronization

/// Writes one JSON object per line: `ts`, `level`, `service`, `logger`, `msg`, then the
/// metadata. Values of sensitive keys (tokens, keys, secrets, passwords, payloads) are
/// replaced by `[redacted]` wherever they appear, so a careless log call cannot leak them.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let service: String
    private let output: LogOutput

    public init(label: String, service: String, level: Logger.Level, output: LogOutput = .standardError) {
        self.label = label
        self.service = service
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var object: [String: JSONValue] = [
            "ts": .string(UTCTimestamp.format(Date())),
            "level": .string(event.level.rawValue),
            "service": .string(service),
            "logger": .string(label),
            "msg": .string(event.message.description),
        ]
        for (key, value) in merged where object[key] == nil {
            object[key] = Redaction.json(key: key, value: value)
        }
        if let error = event.error { object["error"] = .string(String(describing: error)) }
        if event.level >= .error { object["source"] = .string("\(event.file):\(event.line)") }
        var line = JSONValue.object(object).json
        line.append(0x0A)
        output.write(line)
    }
}

/// Where log lines go; writes are serialised so lines never interleave.
public final class LogOutput: Sendable {
    private let handle: Mutex<FileHandle>

    public init(_ handle: FileHandle) {
        self.handle = Mutex(handle)
    }

    public static let standardError = LogOutput(.standardError)

    func write(_ data: Data) {
        handle.withLock { $0.write(data) }
    }
}

/// Which log metadata must never be written in clear.
public enum Redaction {
    /// Key fragments that mark a value as sensitive (compared case-insensitively). A
    /// `carrier` is a propagation carrier: the request's or message's headers, Authorization
    /// and all, which the tracer logs when a `traceparent` cannot be read.
    public static let sensitiveFragments = ["token", "key", "secret", "password", "authorization", "payload", "auth", "credential", "p256dh", "carrier"]

    public static func isSensitive(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return sensitiveFragments.contains { lowered.contains($0) }
    }

    static func json(key: String, value: Logger.Metadata.Value) -> JSONValue {
        if isSensitive(key) { return "[redacted]" }
        switch value {
        case .string(let s): return .string(s)
        case .stringConvertible(let c): return .string(c.description)
        case .array(let a): return .array(a.map { json(key: "", value: $0) })
        case .dictionary(let d):
            return .object(Dictionary(uniqueKeysWithValues: d.map { ($0.key, json(key: $0.key, value: $0.value)) }))
        }
    }
}
