import CCurl
import DequeModule
import Foundation
import Logging
import Metrics
import Synchronization

/// An HTTP client over libcurl's multi interface: one thread drives all transfers, HTTP/2
/// multiplexed over TLS for `https://` (ALPN), HTTP/1.1 for `http://`, connections reused,
/// at most `maxConcurrentStreams` requests in flight (the rest wait in order). Callers
/// `await send(_:)`; no curl type leaves this module.
public final class HTTPTransport: Sendable {
    public let configuration: HTTPTransportConfiguration
    private let multi: CurlMulti
    private let state = Mutex(State())
    private let logger: Logger
    private let inFlightGauge: Gauge
    private let stopped = Gate()

    private struct State {
        var waiting: Deque<Transfer> = []
        var stopping = false
    }

    public init(configuration: HTTPTransportConfiguration = HTTPTransportConfiguration(), logger: Logger = Logger(label: "herald.http")) {
        Self.globalInit
        self.configuration = configuration
        self.logger = logger
        multi = CurlMulti(configuration: configuration)
        inFlightGauge = Gauge(label: "herald_http_in_flight", dimensions: [("transport", configuration.name)])
        let thread = Thread { [self] in self.run() }
        thread.name = "herald-http-\(configuration.name)"
        thread.start()
    }

    /// libcurl's process-wide setup, once.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `request` and returns the response, or throws `HTTPTransportError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let transfer = Transfer(request: request, continuation: continuation)
            let accepted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.waiting.append(transfer)
                return true
            }
            guard accepted else {
                continuation.resume(throwing: HTTPTransportError(.shutdown, "the \(configuration.name) transport is closed"))
                return
            }
            multi.wakeUp()
        }
    }

    /// Stops taking requests, finishes those already taken (each bounded by its timeout),
    /// and ends the thread.
    public func close() async {
        state.withLock { $0.stopping = true }
        multi.wakeUp()
        await stopped.wait()
    }

    // MARK: The transport's thread

    /// The loop of the transport's thread: start what fits, let curl work, finish what is
    /// done, sleep in `curl_multi_poll` until sockets or `wakeUp` need it.
    private func run() {
        var active = 0
        var pending: Deque<Transfer> = []
        let capacity = configuration.maxConcurrentStreams * configuration.maxConnectionsPerHost
        while true {
            let stopping = state.withLock { state -> Bool in
                pending.append(contentsOf: state.waiting)
                state.waiting.removeAll()
                return state.stopping
            }
            while active < capacity, let next = pending.popFirst() {
                if start(next) { active += 1 }
            }
            inFlightGauge.record(active)
            if stopping && active == 0 && pending.isEmpty { break }
            multi.perform()
            while let (handle, result) = multi.nextDone() {
                active -= 1
                if let again = finish(handle: handle, result: result) { pending.prepend(again) }
            }
            multi.poll(timeoutMilliseconds: 1000)
        }
        inFlightGauge.record(0)
        Task { await stopped.open() }
    }

    /// Configures an easy handle for `transfer` and adds it; false (and the transfer failed)
    /// if curl refuses it.
    private func start(_ transfer: Transfer) -> Bool {
        guard let handle = curl_easy_init() else {
            transfer.continuation.resume(throwing: HTTPTransportError(.invalidRequest, "curl_easy_init failed"))
            return false
        }
        transfer.handle = handle
        let request = transfer.request
        let context = Unmanaged.passRetained(transfer).toOpaque()
        var ok = true
        func set(_ code: CURLcode) { if code != CURLE_OK { ok = false } }
        set(herald_curl_easy_setopt_string(handle, CURLOPT_URL, request.url))
        set(herald_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(herald_curl_easy_setopt_long(handle, CURLOPT_PIPEWAIT, 1))
        set(herald_curl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        let secure = request.url.lowercased().hasPrefix("https://")
        set(herald_curl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(secure ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1)))
        set(herald_curl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout)))
        set(herald_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout ?? configuration.requestTimeout)))
        if let caFile = configuration.caFile { set(herald_curl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        let method = request.method.uppercased()
        if let body = request.body {
            set(herald_curl_easy_setopt_long(handle, CURLOPT_POST, 1))
            set(herald_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            set(body.withUnsafeBytes { herald_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)) })
        }
        if method != "GET" && !(method == "POST" && request.body != nil) {
            set(herald_curl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers { list = curl_slist_append(list, "\(name): \(value)") }
        if request.body != nil && !request.headers.contains(where: { $0.name.lowercased() == "expect" }) {
            list = curl_slist_append(list, "Expect:")
        }
        transfer.headerList = list
        if let list { set(herald_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))) }
        set(herald_curl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, context))
        set(herald_curl_easy_setopt_callback(handle, CURLOPT_WRITEFUNCTION, TransferCallbacks.body))
        set(herald_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        set(herald_curl_easy_setopt_callback(handle, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        set(herald_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        guard ok, multi.add(handle) else {
            release(transfer, context: context)
            transfer.continuation.resume(throwing: HTTPTransportError(.invalidRequest, "curl refused the request to \(request.url)"))
            return false
        }
        return true
    }

    /// Completes the transfer of `handle` with curl's result. A transfer that failed before
    /// any response arrived with an HTTP/2 framing, send or receive error is sent once more:
    /// libcurl 7.88 fails the streams still waiting on a connection the server is closing
    /// (GOAWAY), and in our measurements those requests had not reached the server. (Should
    /// one have, the repeat is a duplicate send, as a broker retry would be: delivery is at
    /// least once.) Returns the transfer to send again, if any.
    private func finish(handle: UnsafeMutableRawPointer, result: CURLcode) -> Transfer? {
        var pointer: UnsafeMutableRawPointer?
        _ = herald_curl_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &pointer)
        multi.remove(handle)
        guard let pointer else { curl_easy_cleanup(handle); return nil }
        let transfer = Unmanaged<Transfer>.fromOpaque(pointer).takeUnretainedValue()
        if [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_RECV_ERROR, CURLE_SEND_ERROR].contains(result), transfer.headers.isEmpty, transfer.body.isEmpty, !transfer.sentAgain {
            release(transfer, context: pointer)
            transfer.sentAgain = true
            Counter(label: "herald_http_resent_total", dimensions: [("transport", configuration.name)]).increment()
            return transfer
        }
        let host = URL(string: transfer.request.url)?.host ?? "-"
        let elapsed = ContinuousClock.now - transfer.enqueuedAt
        if result == CURLE_OK {
            var status = 0
            var version = 0
            _ = herald_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            _ = herald_curl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
            let response = HTTPResponse(
                status: status, headers: transfer.headers, body: transfer.body,
                httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? "2" : version == Int(CURL_HTTP_VERSION_1_0) ? "1.0" : "1.1")
            Counter(label: "herald_http_requests_total", dimensions: [("transport", configuration.name), ("status", "\(status / 100)xx")]).increment()
            Metrics.Timer(label: "herald_http_request_duration_seconds", dimensions: [("transport", configuration.name)], preferredDisplayUnit: .seconds)
                .record(duration: elapsed)
            release(transfer, context: pointer)
            transfer.continuation.resume(returning: response)
            return nil
        } else {
            let error = Self.error(result, host: host)
            Counter(label: "herald_http_requests_total", dimensions: [("transport", configuration.name), ("status", error.reason.rawValue)]).increment()
            release(transfer, context: pointer)
            transfer.continuation.resume(throwing: error)
            return nil
        }
    }

    private func release(_ transfer: Transfer, context: UnsafeMutableRawPointer) {
        if let handle = transfer.handle { curl_easy_cleanup(handle) }
        transfer.handle = nil
        if let list = transfer.headerList { curl_slist_free_all(list) }
        transfer.headerList = nil
        Unmanaged<Transfer>.fromOpaque(context).release()
    }

    private static func error(_ code: CURLcode, host: String) -> HTTPTransportError {
        let text = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPTransportError(.connect, "\(host): \(text)")
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPTransportError(.timeout, "\(host): \(text)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return HTTPTransportError(.tls, "\(host): \(text)")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return HTTPTransportError(.invalidRequest, "\(host): \(text)")
        default:
            return HTTPTransportError(.transfer, "\(host): \(text)")
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// The multi handle; used only on the transport's thread, except `wakeUp`, which curl
/// allows from any thread.
final class CurlMulti: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    init(configuration: HTTPTransportConfiguration) {
        handle = curl_multi_init()
        _ = herald_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = herald_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = herald_curl_multi_setopt_long(handle, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
    }

    deinit { curl_multi_cleanup(handle) }

    func wakeUp() { curl_multi_wakeup(handle) }
    func add(_ easy: UnsafeMutableRawPointer) -> Bool { curl_multi_add_handle(handle, easy) == CURLM_OK }
    func remove(_ easy: UnsafeMutableRawPointer) { curl_multi_remove_handle(handle, easy) }

    func perform() {
        var running: Int32 = 0
        curl_multi_perform(handle, &running)
    }

    func nextDone() -> (UnsafeMutableRawPointer, CURLcode)? {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(handle, &queued) {
            var result = CURLE_OK
            if let easy = herald_curl_msg_done(message, &result) { return (easy, result) }
        }
        return nil
    }

    func poll(timeoutMilliseconds: Int32) {
        curl_multi_poll(handle, nil, 0, timeoutMilliseconds, nil)
    }
}

/// Opens once; waiters resume when it opens.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}
