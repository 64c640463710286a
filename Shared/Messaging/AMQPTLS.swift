/// How an `amqps://` connection is secured: TLS 1.2 or newer, the broker's certificate
/// checked against `caFile` (or the system's trust store) and, by default, against the host
/// name in the URL. A client certificate is presented when both of its files are given.
public struct AMQPTLS: Sendable, Hashable {
    /// PEM file of the CA (or CAs) that signed the broker's certificate; nil trusts the
    /// system's store.
    public var caFile: String?
    /// PEM file of the client certificate, for brokers that authenticate clients by it.
    public var certificateFile: String?
    /// PEM file of the client certificate's private key.
    public var keyFile: String?
    /// Whether the broker's certificate must name the host the URL connects to. Turning it
    /// off trusts any certificate the CA signed, for any host: only for a broker reached
    /// by an address its certificate cannot name.
    public var verifyHostname: Bool

    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, verifyHostname: Bool = true) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.verifyHostname = verifyHostname
    }
}
