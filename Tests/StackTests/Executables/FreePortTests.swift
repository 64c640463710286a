import Foundation
import HeraldTestSupport
import Testing

/// The ports tests hand to child processes: a port the kernel may also give an outgoing
/// connection in the meantime (its ephemeral range) makes the child fail to bind at random.
@Suite struct FreePortTests {
    @Test func aFreePortLiesOutsideTheKernelsEphemeralRange() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(range.count == 2)
        for _ in 0..<50 {
            let port = try freePort()
            #expect(!(range[0]...range[1]).contains(port), "\(port) is in the ephemeral range \(range[0])-\(range[1])")
        }
    }

    @Test func noPortIsHandedOutTwice() throws {
        let ports = try (0..<200).map { _ in try freePort() }
        #expect(Set(ports).count == ports.count)
    }
}
