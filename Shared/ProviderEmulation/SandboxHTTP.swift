import Foundation
import HeraldModel
import Metrics
import Synchronization

/// Small helpers the emulated endpoints share.
public enum SandboxHTTP {
    public static let maxBody = 1 << 20

    public static func json(_ status: Int, _ object: Any, headers: [(name: String, value: String)] = [], contentType: String = "application/json; charset=UTF-8") -> SandboxReply {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return SandboxReply(status: status, headers: [("content-type", contentType)] + headers, body: data)
    }

    /// A reply whose JSON is already written (the hot paths skip JSONSerialization).
    public static func rawJSON(_ status: Int, _ json: String, contentType: String = "application/json; charset=UTF-8") -> SandboxReply {
        SandboxReply(status: status, headers: [("content-type", contentType)], body: Data(json.utf8))
    }

    public static func empty(_ status: Int) -> SandboxReply {
        SandboxReply(status: status)
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `application/x-www-form-urlencoded` fields (form bodies and query strings alike).
    public static func form(_ data: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: data, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// A JSON number (not a boolean) as a Double.
    public static func number(_ value: Any) -> Double? {
        guard !HeraldJSON.isBoolean(value) else { return nil }
        return (value as? NSNumber)?.doubleValue
    }

    public static func retryAfter(_ seconds: Int) -> [(name: String, value: String)] {
        [("retry-after", String(seconds))]
    }
}

/// `herald_sandbox_requests_total{provider, endpoint, outcome}`.
public final class SandboxMetrics: Sendable {
    public init() {}

    private let counters = Mutex<[String: Counter]>([:])

    public func count(provider: String, endpoint: String, outcome: String) {
        let key = "\(provider)|\(endpoint)|\(outcome)"
        let counter = counters.withLock { table in
            if let existing = table[key] { return existing }
            let made = Counter(label: "herald_sandbox_requests_total", dimensions: [("provider", provider), ("endpoint", endpoint), ("outcome", outcome)])
            table[key] = made
            return made
        }
        counter.increment()
    }
}
