import CCurl
import Foundation

/// One request on its way through curl: its easy handle, what has arrived so far, and the
/// continuation to resume. Handed over once to the transport's thread, then only used there
/// (hence `@unchecked Sendable`).
final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let continuation: CheckedContinuation<HTTPResponse, any Error>
    let enqueuedAt: ContinuousClock.Instant
    /// Scheme, host and port: what the per-host limit counts.
    let origin: Substring
    let maxBodyBytes: Int
    /// Set when the body outgrew `maxBodyBytes` and the transfer was aborted.
    var tooLarge = false
    var handle: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The `CURLOPT_CONNECT_TO` entry of a request with a `connectAddress`.
    var connectList: UnsafeMutablePointer<curl_slist>?
    var body = Data()
    var headers: [(name: String, value: String)] = []
    /// Whether it was already sent again after a framing error.
    var sentAgain = false

    init(request: HTTPRequest, maxBodyBytes: Int, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        self.request = request
        self.continuation = continuation
        self.maxBodyBytes = maxBodyBytes
        origin = Self.origin(of: request.url)
        enqueuedAt = ContinuousClock.now
    }

    /// `scheme://host:port` of `url`, as given (cheap: a scan of the UTF-8 bytes, no URL
    /// parsing on the hot path).
    static func origin(of url: String) -> Substring {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              let authority = bytes.index(colon, offsetBy: 3, limitedBy: bytes.endIndex) else { return Substring(url) }
        let end = bytes[authority...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        return url[url.startIndex..<end]
    }

    /// Receives one header line; a status line starts a new header block (after `100
    /// Continue`, or a redirect), so only the final response's headers remain.
    func receiveHeader(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return }
        headers.append((trimmed[..<colon].lowercased(), trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
}

/// curl's callbacks: plain C functions that find their `Transfer` through the context pointer.
enum TransferCallbacks {
    static let body: herald_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        guard transfer.body.count + size * count <= transfer.maxBodyBytes else {
            transfer.tooLarge = true
            return 0  // curl aborts the transfer with CURLE_WRITE_ERROR
        }
        transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
        return size * count
    }

    static let header: herald_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
        transfer.receiveHeader(String(decoding: bytes, as: UTF8.self))
        return size * count
    }
}
