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

    /// Receives one header line as curl hands it over (CRLF included); a status line starts
    /// a new header block (after `100 Continue`, or a redirect), so only the final
    /// response's headers remain.
    func receiveHeader(_ line: UnsafeRawBufferPointer) {
        switch HeaderLine(line) {
        case .status: headers.removeAll()
        case .field(let name, let value): headers.append((name, value))
        case .other: break
        }
    }
}

/// One line of a response head, read from its bytes (ASCII work only: it runs for every
/// header of every response).
enum HeaderLine: Equatable {
    /// `HTTP/…`: the start of a header block.
    case status
    /// `Name: value`, the name lowercased, the value without surrounding blanks.
    case field(name: String, value: String)
    /// The blank line that ends the head, or anything without a colon.
    case other

    init(_ bytes: UnsafeRawBufferPointer) {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if line.starts(with: "HTTP/".utf8) {
            self = .status
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            self = .other
            return
        }
        var valueStart = colon + 1
        while valueStart < line.endIndex, isBlank(line[valueStart]) { valueStart += 1 }
        let name = String(unsafeUninitializedCapacity: colon) { buffer in
            for index in 0..<colon {
                let byte = line[index]
                buffer[index] = (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
            }
            return colon
        }
        self = .field(name: name, value: String(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart...]), as: UTF8.self))
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
        transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }
}
