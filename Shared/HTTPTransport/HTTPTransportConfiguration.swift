/// How an `HTTPTransport` connects. Defaults suit one provider endpoint: one HTTP/2
/// connection per host carrying up to 100 concurrent streams.
public struct HTTPTransportConfiguration: Sendable, Hashable {
    /// A name for logs and metrics (`fcm`, `hms`, `webhook`).
    public var name: String
    /// Requests in flight at once; more wait in order.
    public var maxConcurrentStreams: Int
    /// Connections per host: HTTP/2 multiplexes on one; HTTP/1.1 needs one per request.
    public var maxConnectionsPerHost: Int
    public var connectTimeout: Duration
    /// The default time for a whole request.
    public var requestTimeout: Duration
    /// A PEM bundle of the CAs to trust instead of the system's (e.g. the sandbox's).
    public var caFile: String?

    public init(
        name: String = "http", maxConcurrentStreams: Int = 100, maxConnectionsPerHost: Int = 1,
        connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(30), caFile: String? = nil
    ) {
        self.name = name
        self.maxConcurrentStreams = max(1, maxConcurrentStreams)
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.caFile = caFile
    }
}
