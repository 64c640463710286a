import HTTPTransport

/// A block of addresses, `192.0.2.0/24` or `2001:db8::/32` (a bare address is its own /32 or
/// /128): an ingest URL's allowed sender network.
public struct NetworkCIDR: Sendable, Hashable, CustomStringConvertible {
    public let address: NetworkAddress
    public let prefix: Int

    /// Nil when `text` is not an address with an optional prefix length that fits it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = NetworkAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        guard let prefix = parts.count == 2 ? Int(parts[1]) : bits, (0...bits).contains(prefix) else { return nil }
        self.address = address
        self.prefix = prefix
    }

    /// Whether `peer` (an IPv4-mapped IPv6 address counts as its IPv4 one) is in the block.
    public func contains(_ peer: NetworkAddress) -> Bool {
        var bytes = peer.bytes
        if bytes.count == 16, address.bytes.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == address.bytes.count else { return false }
        var left = prefix
        for index in bytes.indices where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            guard bytes[index] & mask == address.bytes[index] & mask else { return false }
            left -= 8
        }
        return true
    }

    public var description: String { "\(address)/\(prefix)" }
}
