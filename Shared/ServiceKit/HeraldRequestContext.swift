import Hummingbird
import NIOCore

/// The request context of Herald's HTTP servers: Hummingbird's basic one, plus the address
/// of the peer the request came from (an ingest URL's sender networks are checked against it).
public struct HeraldRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer; nil for a request that did not come over a socket.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
