/// How an `HTTPTransport` connects and how much it takes on. Defaults suit one provider
/// endpoint: one HTTP/2 connection per host carrying up to 100 concurrent streams. For many
/// tenants' endpoints (webhooks), `maxRequestsPerHost` keeps one slow host from taking every
/// slot, and `maxQueueWait` bounds how long a request waits for one.
public struct HTTPTransportConfiguration: Sendable, Hashable {
    /// A name for logs and metrics (`fcm`, `hms`, `webhook`).
    public var name: String
    /// Streams per HTTP/2 connection.
    public var maxConcurrentStreams: Int
    /// Connections per host: HTTP/2 multiplexes on one; HTTP/1.1 needs one per request.
    public var maxConnectionsPerHost: Int
    /// Requests in flight at once, all hosts together; more wait in order.
    public var maxConcurrentRequests: Int
    /// Requests in flight at once to one host (scheme, host and port); more wait in order.
    public var maxRequestsPerHost: Int
    /// How long a request may wait for a free slot before it fails with `.overloaded`.
    public var maxQueueWait: Duration
    /// A larger response body fails the request with `.responseTooLarge`.
    public var maxResponseBodyBytes: Int
    public var connectTimeout: Duration
    /// The default time for a whole request, from when it gets its slot.
    public var requestTimeout: Duration
    /// A PEM bundle of the CAs to trust instead of the system's (e.g. the sandbox's).
    public var caFile: String?

    public init(
        name: String = "http", maxConcurrentStreams: Int = 100, maxConnectionsPerHost: Int = 1,
        maxConcurrentRequests: Int? = nil, maxRequestsPerHost: Int? = nil, maxQueueWait: Duration = .seconds(30),
        maxResponseBodyBytes: Int = 1 << 20,
        connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(30), caFile: String? = nil
    ) {
        self.name = name
        self.maxConcurrentStreams = max(1, maxConcurrentStreams)
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        let perHost = max(1, maxRequestsPerHost ?? self.maxConcurrentStreams * self.maxConnectionsPerHost)
        self.maxRequestsPerHost = perHost
        self.maxConcurrentRequests = max(1, maxConcurrentRequests ?? perHost)
        self.maxQueueWait = maxQueueWait
        self.maxResponseBodyBytes = max(0, maxResponseBodyBytes)
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.caFile = caFile
    }
}
