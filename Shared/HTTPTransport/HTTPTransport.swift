import CCurl
import DequeModule
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// An HTTP client over libcurl's multi interface: one thread drives all transfers, HTTP/2
/// multiplexed over TLS for `https://` (ALPN), HTTP/1.1 for `http://`, connections reused.
/// At most `maxConcurrentRequests` requests are in flight, and at most `maxRequestsPerHost`
/// to one host; the rest wait in order, each for at most `maxQueueWait`. A response body
/// larger than `maxResponseBodyBytes` is not read. Callers `await send(_:)`; no curl type
/// leaves this module. As a `Service`, it closes on graceful shutdown.
public final class HTTPTransport: Service, Sendable {
    public let configuration: HTTPTransportConfiguration
    private let multi: CurlMulti
    private let state = Mutex(State())
    private let logger: Logger
    private let metrics: TransportMetrics
    private let stopped = Gate()
    private let inFlight = Atomic<Int>(0)
    /// Set by the first `send` since the thread last took the queue: one wake-up (a write to
    /// curl's socket pair, and a turn of the loop over every transfer) serves a whole burst.
    private let wakeUpPending = Atomic<Bool>(false)

    private struct State {
        var waiting: Deque<Transfer> = []
        var stopping = false
    }

    public init(configuration: HTTPTransportConfiguration = HTTPTransportConfiguration(), logger: Logger = Logger(label: "herald.http")) {
        Self.globalInit
        self.configuration = configuration
        self.logger = logger
        multi = CurlMulti(configuration: configuration)
        metrics = TransportMetrics(transport: configuration.name)
        let thread = Thread { [self] in self.drive() }
        thread.name = "herald-http-\(configuration.name)"
        thread.start()
    }

    /// libcurl's process-wide setup, once.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `request` and returns the response, or throws `HTTPTransportError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let transfer = Transfer(request: request, maxBodyBytes: configuration.maxResponseBodyBytes, continuation: continuation)
            let accepted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.waiting.append(transfer)
                return true
            }
            guard accepted else {
                continuation.resume(throwing: HTTPTransportError(.shutdown, "the \(configuration.name) transport is closed"))
                return
            }
            if !wakeUpPending.exchange(true, ordering: .acquiringAndReleasing) { multi.wakeUp() }
        }
    }

    /// Requests sent and not yet answered, all hosts together.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Stops taking requests, finishes those already taken (each bounded by its timeout),
    /// and ends the thread.
    public func close() async {
        state.withLock { $0.stopping = true }
        multi.wakeUp()
        await stopped.wait()
    }

    /// Serves until graceful shutdown, then closes.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    // MARK: The transport's thread

    /// The requests waiting for a slot, a queue per origin, served round-robin so that one
    /// host's backlog does not hold up another's.
    private struct Waiting {
        var queues: [Substring: Deque<Transfer>] = [:]
        var order: Deque<Substring> = []
        var activePerOrigin: [Substring: Int] = [:]
        var count = 0

        mutating func append(_ transfer: Transfer) {
            if queues[transfer.origin]?.isEmpty != false { order.append(transfer.origin) }
            queues[transfer.origin, default: []].append(transfer)
            count += 1
        }

        mutating func prepend(_ transfer: Transfer) {
            if queues[transfer.origin]?.isEmpty != false { order.append(transfer.origin) }
            queues[transfer.origin, default: []].prepend(transfer)
            count += 1
        }

        /// The next transfer whose origin has a free slot, taking origins in turn. (Queues are
        /// changed in place through the dictionary: a copy would cost a whole queue per call.)
        mutating func next(perOrigin limit: Int) -> Transfer? {
            for _ in 0..<order.count {
                let origin = order.removeFirst()
                guard activePerOrigin[origin, default: 0] < limit, let transfer = queues[origin]?.popFirst() else {
                    if queues[origin]?.isEmpty == false { order.append(origin) } else { queues[origin] = nil }
                    continue
                }
                count -= 1
                if queues[origin]?.isEmpty == false { order.append(origin) } else { queues[origin] = nil }
                return transfer
            }
            return nil
        }

        /// Removes the transfers that have waited since before `cutoff`.
        mutating func expire(before cutoff: ContinuousClock.Instant) -> [Transfer] {
            var expired: [Transfer] = []
            for origin in order {
                while let first = queues[origin]?.first, first.enqueuedAt < cutoff {
                    expired.append(queues[origin]!.removeFirst())
                }
            }
            guard !expired.isEmpty else { return [] }
            for origin in order where queues[origin]?.isEmpty != false { queues[origin] = nil }
            order.removeAll { queues[$0] == nil }
            count -= expired.count
            return expired
        }
    }

    /// The loop of the transport's thread: start what fits, let curl work, finish what is
    /// done, sleep in `curl_multi_poll` until sockets or `wakeUp` need it.
    private func drive() {
        var active = 0
        var waiting = Waiting()
        let capacity = configuration.maxConcurrentRequests
        let perOrigin = configuration.maxRequestsPerHost
        while true {
            wakeUpPending.store(false, ordering: .sequentiallyConsistent)
            let stopping = state.withLock { state -> Bool in
                for transfer in state.waiting { waiting.append(transfer) }
                state.waiting.removeAll()
                return state.stopping
            }
            if waiting.count > 0 {
                for transfer in waiting.expire(before: .now - configuration.maxQueueWait) {
                    metrics.count(.overloaded)
                    transfer.continuation.resume(throwing: HTTPTransportError(
                        .overloaded, "\(transfer.origin): no free slot within \(configuration.maxQueueWait)"))
                }
            }
            while active < capacity, let next = waiting.next(perOrigin: perOrigin) {
                if start(next) {
                    active += 1
                    waiting.activePerOrigin[next.origin, default: 0] += 1
                }
            }
            metrics.inFlight.record(active)
            inFlight.store(active, ordering: .relaxed)
            if stopping && active == 0 && waiting.count == 0 { break }
            multi.perform()
            while let (handle, result) = multi.nextDone() {
                active -= 1
                if let (origin, again) = finish(handle: handle, result: result) {
                    waiting.activePerOrigin[origin, default: 1] -= 1
                    if let again { waiting.prepend(again) }
                }
            }
            // While transfers run, at most 10 ms: libcurl 7.88 (Debian 12) may already hold
            // the end of an HTTP/2 stream it read with another stream's frames (an empty
            // DATA frame closing a bodiless answer, as APNs' 200 is) without waking the poll,
            // so that answer waited out the whole timeout (a p99 of 1 s in scripts/bench-apns).
            multi.poll(timeoutMilliseconds: waiting.count > 0 || active > 0 ? 10 : 1000)
        }
        metrics.inFlight.record(0)
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
        // Only http(s), and a redirect is an answer to read, never followed.
        set(herald_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(herald_curl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        if let address = request.connectAddress {
            // Any host and port of this request connect to `address` (on the URL's port).
            let target = address.contains(":") ? "[\(address)]" : address
            transfer.connectList = curl_slist_append(nil, "::\(target):")
            set(herald_curl_easy_setopt_pointer(handle, CURLOPT_CONNECT_TO, UnsafeMutableRawPointer(transfer.connectList)))
            set(herald_curl_easy_setopt_string(handle, CURLOPT_PROXY, ""))
        }
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
    /// least once.) Returns the transfer's origin (its slot is free again) and the transfer
    /// to send again, if any.
    private func finish(handle: UnsafeMutableRawPointer, result: CURLcode) -> (Substring, Transfer?)? {
        var pointer: UnsafeMutableRawPointer?
        _ = herald_curl_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &pointer)
        multi.remove(handle)
        guard let pointer else { curl_easy_cleanup(handle); return nil }
        let transfer = Unmanaged<Transfer>.fromOpaque(pointer).takeUnretainedValue()
        if [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_RECV_ERROR, CURLE_SEND_ERROR].contains(result), transfer.headers.isEmpty, transfer.body.isEmpty, !transfer.sentAgain {
            release(transfer, context: pointer)
            transfer.sentAgain = true
            metrics.resent.increment()
            return (transfer.origin, transfer)
        }
        if result == CURLE_OK {
            var status = 0
            var version = 0
            _ = herald_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            _ = herald_curl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
            let response = HTTPResponse(
                status: status, headers: transfer.headers, body: transfer.body,
                httpVersion: version == Int(CURL_HTTP_VERSION_2_0) ? "2" : version == Int(CURL_HTTP_VERSION_1_0) ? "1.0" : "1.1")
            metrics.count(status: status)
            metrics.duration.record(duration: ContinuousClock.now - transfer.enqueuedAt)
            release(transfer, context: pointer)
            transfer.continuation.resume(returning: response)
        } else {
            let error = transfer.tooLarge
                ? HTTPTransportError(.responseTooLarge, "\(transfer.origin): the response body exceeds \(transfer.maxBodyBytes) bytes")
                : Self.error(result, origin: transfer.origin)
            metrics.count(error.reason)
            release(transfer, context: pointer)
            transfer.continuation.resume(throwing: error)
        }
        return (transfer.origin, nil)
    }

    private func release(_ transfer: Transfer, context: UnsafeMutableRawPointer) {
        if let handle = transfer.handle { curl_easy_cleanup(handle) }
        transfer.handle = nil
        if let list = transfer.headerList { curl_slist_free_all(list) }
        transfer.headerList = nil
        if let list = transfer.connectList { curl_slist_free_all(list) }
        transfer.connectList = nil
        Unmanaged<Transfer>.fromOpaque(context).release()
    }

    private static func error(_ code: CURLcode, origin host: Substring) -> HTTPTransportError {
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

/// The transport's metrics, made once.
struct TransportMetrics: Sendable {
    let inFlight: Gauge
    let resent: Counter
    let duration: Metrics.Timer
    private let byStatusClass: [Counter]
    private let byError: [HTTPTransportError.Reason: Counter]

    init(transport: String) {
        let name = ("transport", transport)
        inFlight = Gauge(label: "herald_http_in_flight", dimensions: [name])
        resent = Counter(label: "herald_http_resent_total", dimensions: [name])
        duration = Metrics.Timer(label: "herald_http_request_duration_seconds", dimensions: [name], preferredDisplayUnit: .seconds)
        byStatusClass = (1...5).map { Counter(label: "herald_http_requests_total", dimensions: [name, ("status", "\($0)xx")]) }
        var byError: [HTTPTransportError.Reason: Counter] = [:]
        for reason in HTTPTransportError.Reason.allCases {
            byError[reason] = Counter(label: "herald_http_requests_total", dimensions: [name, ("status", reason.rawValue)])
        }
        self.byError = byError
    }

    func count(status: Int) {
        byStatusClass[min(4, max(0, status / 100 - 1))].increment()
    }

    func count(_ reason: HTTPTransportError.Reason) {
        byError[reason]?.increment()
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
