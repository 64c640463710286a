import Foundation

/// An IPv4 or IPv6 address as bytes, and what part of the network it belongs to: the
/// server-side request forgery guard refuses every scope but `global` unless an app allows
/// private networks.
public struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Reachable on the internet.
        case global
        /// 127.0.0.0/8, ::1.
        case loopback
        /// 10/8, 172.16/12, 192.168/16, 100.64/10 (shared), fec0::/10 (site-local).
        case `private`
        /// 169.254/16 (the cloud metadata address among them), fe80::/10.
        case linkLocal = "link-local"
        /// fc00::/7.
        case uniqueLocal = "unique-local"
        /// 224/4, ff00::/8.
        case multicast
        /// 0.0.0.0/8, :: (on Linux a connection to them reaches this machine).
        case unspecified
        /// Documentation, benchmarking, broadcast, future use, Teredo and other special ranges.
        case reserved

        /// Whether `allowPrivateNetworks` lets a webhook connect to it.
        public var isPrivateNetwork: Bool {
            switch self {
            case .loopback, .private, .linkLocal, .uniqueLocal: true
            default: false
            }
        }
    }

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a literal (`10.0.0.1`, `::1`, `[::1]`); nil if it is not one.
    public init?(_ text: String) {
        var literal = text
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return nil }
        self.bytes = withUnsafeBytes(of: v6) { Array($0) }
    }

    public var isIPv6: Bool { bytes.count == 16 }

    /// The address as text (`10.0.0.1`, `::1`), the form curl connects to.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if isIPv6 {
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
        } else {
            var address = in_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
        }
        return String(cString: buffer)
    }

    /// The scope; an IPv6 address that embeds an IPv4 one (v4-mapped `::ffff:a.b.c.d`,
    /// v4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`) has the
    /// embedded address's scope.
    public var scope: Scope {
        isIPv6 ? Self.scope6(bytes) : Self.scope4(bytes[0], bytes[1], bytes[2], bytes[3])
    }

    private static func scope4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Scope {
        switch (a, b, c) {
        case (0, _, _): return .unspecified
        case (127, _, _): return .loopback
        case (10, _, _), (172, 16...31, _), (192, 168, _), (100, 64...127, _): return .private
        case (169, 254, _): return .linkLocal
        case (224...239, _, _): return .multicast
        case (240...255, _, _): return .reserved  // future use and 255.255.255.255
        case (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113), (198, 18...19, _): return .reserved
        default: return .global
        }
    }

    private static func scope6(_ x: [UInt8]) -> Scope {
        let leadingZeros = x.prefix(10).allSatisfy { $0 == 0 }
        if leadingZeros && x[10] == 0xff && x[11] == 0xff { return scope4(x[12], x[13], x[14], x[15]) }  // ::ffff:a.b.c.d
        if leadingZeros && x[10] == 0 && x[11] == 0 {
            if x[12...14].allSatisfy({ $0 == 0 }) {
                if x[15] == 0 { return .unspecified }  // ::
                if x[15] == 1 { return .loopback }  // ::1
            }
            return scope4(x[12], x[13], x[14], x[15])  // ::a.b.c.d
        }
        if x[0...11] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return scope4(x[12], x[13], x[14], x[15]) }  // NAT64
        if x[0] == 0x00, x[1] == 0x64, x[2] == 0xff, x[3] == 0x9b, x[4] == 0, x[5] == 1 { return .private }  // 64:ff9b:1::/48
        if x[0] == 0x20, x[1] == 0x02 { return scope4(x[2], x[3], x[4], x[5]) }  // 6to4
        if x[0] == 0xff { return .multicast }
        if x[0] == 0xfe, x[1] & 0xc0 == 0x80 { return .linkLocal }  // fe80::/10
        if x[0] == 0xfe, x[1] & 0xc0 == 0xc0 { return .private }  // fec0::/10, site-local
        if x[0] & 0xfe == 0xfc { return .uniqueLocal }  // fc00::/7
        if x[0] == 0x20, x[1] == 0x01, x[2] == 0x0d, x[3] == 0xb8 { return .reserved }  // documentation
        if x[0] == 0x20, x[1] == 0x01, x[2] == 0, x[3] == 0 { return .reserved }  // Teredo
        if x[0] == 0x01, x[1...7].allSatisfy({ $0 == 0 }) { return .reserved }  // 100::/64, discard
        return .global
    }
}
