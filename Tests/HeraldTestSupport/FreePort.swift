import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ports already handed out by this test process, so two callers never get the same one.
private let handedOut = Mutex<Set<Int>>([])

/// A port nothing listens on right now, for a server a test starts later (often in a child
/// process). It is taken below the kernel's ephemeral range: a port from that range can be
/// given to any outgoing connection between this call and the server's bind, which made a
/// service fail at random with "Address already in use".
/// With `offsets`, the ports that far above it are free too (a RabbitMQ node's Erlang
/// distribution listens 20,000 above its AMQP port).
public func freePort(alsoFreeAbove offsets: [Int] = []) throws -> Int {
    let (low, high) = ephemeralRange()
    let candidates = low > 11_000 ? 10_000..<low : (high + 1)..<65_536
    for _ in 0..<1_000 {
        let port = Int.random(in: candidates)
        guard offsets.allSatisfy({ port + $0 < 65_536 }) else { continue }
        let fresh = handedOut.withLock { $0.insert(port).inserted }
        if fresh, canBind(port), offsets.allSatisfy({ canBind(port + $0) }) { return port }
    }
    throw TestFailure("no free port in \(candidates)")
}

/// The kernel's range for outgoing connections' local ports (Linux's default when unreadable).
private func ephemeralRange() -> (Int, Int) {
    let bounds = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
        .split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
    return bounds.count == 2 ? (bounds[0], bounds[1]) : (32_768, 60_999)
}

private func canBind(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
