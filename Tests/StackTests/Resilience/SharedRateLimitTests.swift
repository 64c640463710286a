import Foundation
import HeraldTestSupport
import Testing

/// Two gateway processes on one broker hold an app to its one rate limit together: each
/// learns of the other on `herald.control` and takes half of it.
extension ServiceProcesses {
    @Suite("One rate limit for all gateways")
    struct SharedRateLimitTests {
        static func replicas(_ gateway: ServiceProcess) async throws -> Int? {
            let metrics = try await get(port: gateway.healthPort, path: "/metrics").body
            return metrics.split(separator: "\n").first { $0.hasPrefix("herald_gateway_replicas ") }
                .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }.map { Int($0) }
        }

        @Test("two gateways admit the app's limit together (within 10 % and one burst), not twice it; a stopped one leaves the whole limit to the other")
        func twoGatewaysShareOneLimit() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-limit-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let app = "limit-\(UUID().uuidString.prefix(6).lowercased())"
            let key = "key-\(UUID())"
            let (perSecond, burst, seconds) = (20.0, 10, 5.0)
            let file = directory.appendingPathComponent("herald.yaml")
            try Data("""
                apps:
                  \(app):
                    apiKeys:
                      - { id: k, sha256: \(HeraldStack.sha256Hex(key)) }
                    rateLimits:
                      app: { perSecond: \(perSecond), burst: \(burst) }
                """.utf8).write(to: file)
            let gateways = try (0..<2).map { _ in try ServiceProcess("herald-gateway", environment: ["HERALD_CONFIG": file.path]) }
            defer { gateways.forEach { $0.discard() } }
            for gateway in gateways { try await gateway.waitUntilReady() }
            for gateway in gateways {
                try await eventually(timeout: .seconds(30), "gateway \(gateway.port) to count two replicas") { try await Self.replicas(gateway) == 2 }
            }
            // Let the buckets fill to their (shared) burst, then send as fast as eight clients can,
            // alternating between the gateways, as a load balancer would.
            try await Task.sleep(for: .seconds(1))
            let end = ContinuousClock.now + .seconds(seconds)
            let ports = gateways.map(\.port)
            let (taken, refused) = await withTaskGroup(of: (Int, Int).self) { group in
                for client in 0..<8 {
                    group.addTask {
                        var (n, admitted, refused) = (client, 0, 0)
                        while ContinuousClock.now < end {
                            let status = await postEmptyEvent(port: ports[n % 2], app: app, key: key)
                            if status == 400 { admitted += 1 } else if status == 429 { refused += 1 }
                            n += 1
                        }
                        return (admitted, refused)
                    }
                }
                return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
            }
            let limit = Double(burst) + perSecond * seconds
            #expect(refused > 0, "the load was over the limit")
            #expect(Double(taken) <= limit * 1.1 + 2, "admitted \(taken) in \(seconds) s; the limit allows \(limit)")
            #expect(Double(taken) >= perSecond * seconds * 0.8, "admitted \(taken): the shares add up to the limit, not less")

            try await gateways[1].terminate()
            try await eventually(timeout: .seconds(30), "the remaining gateway to count itself alone") { try await Self.replicas(gateways[0]) == 1 }
        }
    }
}
