import Foundation
import Synchronization

/// Looks a host name up. The webhook client checks every address it returns and connects
/// to one of those, so what is checked is what is reached.
public protocol HostResolver: Sendable {
    /// The host's addresses; an IP literal is its own single address. Throws
    /// `HostResolutionError` when the name cannot be resolved.
    func addresses(of host: String) async throws -> [NetworkAddress]
}

/// Why a host name gave no address.
public struct HostResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var reason: String
    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }
    public var description: String { "cannot resolve \(host): \(reason)" }
}

/// The system's resolver (`getaddrinfo`: /etc/hosts, then DNS), run off the concurrency
/// pool, each answer kept for `cacheLifetime` so a busy destination is not looked up on
/// every forward.
public final class SystemHostResolver: HostResolver {
    public let cacheLifetime: Duration
    private let cache = Mutex<[String: (addresses: [NetworkAddress], until: ContinuousClock.Instant)]>([:])

    public init(cacheLifetime: Duration = .seconds(10)) {
        self.cacheLifetime = cacheLifetime
    }

    public func addresses(of host: String) async throws -> [NetworkAddress] {
        if let literal = NetworkAddress(host) { return [literal] }
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0[host] }), cached.until > now { return cached.addresses }
        let addresses = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[NetworkAddress], any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.lookUp(host) })
            }
        }
        cache.withLock { table in
            if table.count > 10_000 { table.removeAll() }
            table[host] = (addresses, now + cacheLifetime)
        }
        return addresses
    }

    /// `getaddrinfo` for TCP, every address family, in the order the system prefers.
    static func lookUp(_ host: String) throws -> [NetworkAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw HostResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [NetworkAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socket = current.pointee.ai_addr {
                switch Int32(socket.pointee.sa_family) {
                case AF_INET:
                    let address = socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    if let parsed = NetworkAddress(bytes: withUnsafeBytes(of: address) { Array($0) }) { addresses.append(parsed) }
                case AF_INET6:
                    let address = socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    if let parsed = NetworkAddress(bytes: withUnsafeBytes(of: address) { Array($0) }) { addresses.append(parsed) }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        var seen = Set<NetworkAddress>()
        addresses = addresses.filter { seen.insert($0).inserted }
        guard !addresses.isEmpty else { throw HostResolutionError(host: host, reason: "no IPv4 or IPv6 address") }
        return addresses
    }
}
