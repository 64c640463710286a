import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Small helpers the emulated endpoints share.
enum SandboxHTTP {
    static let maxBody = 1 << 20

    static func json(_ status: Int, _ object: Any, headers: HTTPFields = [:], contentType: String = "application/json; charset=UTF-8") -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: .init(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A response whose JSON is already written (the hot paths skip JSONSerialization).
    static func rawJSON(_ status: Int, _ json: String, contentType: String = "application/json; charset=UTF-8") -> Response {
        Response(status: .init(code: status), headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
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

    static func body(of request: Request) async throws -> Data {
        let buffer = try await request.body.collect(upTo: maxBody)
        return Data(buffer.readableBytesView)
    }

    /// `application/x-www-form-urlencoded` fields.
    static func form(_ data: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: data, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// The bearer token of the `Authorization` header.
    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let bytes = value.utf8
        guard bytes.count > 7, bytes.prefix(7).elementsEqual("bearer ".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        let token = value.utf8.dropFirst(7).drop(while: { $0 == UInt8(ascii: " ") })
        let trimmed = String(decoding: token, as: UTF8.self).trimmingTrailingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether a value from JSONSerialization is a JSON boolean. (On Linux a JSON 0 or 1 also
    /// passes `is Bool`; booleans come as their own NSNumber subclass.)
    static func isBoolean(_ value: Any) -> Bool {
        String(describing: type(of: value)).contains("Bool")
    }

    /// A JSON number (not a boolean) as a Double.
    static func number(_ value: Any) -> Double? {
        guard !isBoolean(value) else { return nil }
        return (value as? NSNumber)?.doubleValue
    }

    static func retryAfter(_ seconds: Int) -> HTTPFields {
        [HTTPField.Name("Retry-After")!: String(seconds)]
    }
}

/// `herald_sandbox_requests_total{provider, endpoint, outcome}`.
final class SandboxMetrics: Sendable {
    private let counters = Mutex<[String: Counter]>([:])

    func count(provider: String, endpoint: String, outcome: String) {
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

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
