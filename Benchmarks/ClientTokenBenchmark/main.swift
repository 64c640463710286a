import Crypto
import Foundation
import Gateway
import HeraldControl
import HeraldDomain

// Benchmark: what the gateway's check of a request's credential costs (`Credentials.authenticate`:
// the Authorization header read, its SHA-256, the API keys compared, a client token verified),
// per request, median of single calls. Run by scripts/bench-client-tokens, which puts it
// beside the gateway's whole CPU per request.
//
//   herald-client-token-bench [calls=20000]
let calls = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("client-token-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
let signingKey = P256.Signing.PrivateKey()
try Data(secret.utf8).write(to: folder.appendingPathComponent("secret"))
try Data(signingKey.publicKey.pemRepresentation.utf8).write(to: folder.appendingPathComponent("key.pem"))
let apiKey = "hk_bench-key"
let digest = SHA256.hash(data: Data(apiKey.utf8)).map { String(format: "%02x", $0) }.joined()
let apps = try AppsConfiguration.parse("""
    apps:
      bench:
        apiKeys:
          - { id: bench, sha256: \(digest), scopes: [events, devices] }
        clientTokens: { hmacSecretFile: secret, publicKeyFile: key.pem }
    """, relativeTo: folder)

/// A distinct token per call (a device presenting its token for the first time), as
/// `heraldctl client-token` mints them.
func tokens(_ alg: String, count: Int) throws -> [String] {
    try (0..<count).map { index in
        try NewClientToken(
            apps: apps, app: "bench", user: "user-\(index)", pushIds: ["profile-\(index)"], ttl: 3600,
            privateKeyPEM: alg == "ES256" ? signingKey.pemRepresentation : nil).token
    }
}

/// The median and the 99th percentile of `authenticate` on each header, in microseconds.
func measure(_ headers: [String]) throws -> (median: Double, p99: Double) {
    let credentials = try Credentials(apps: apps)
    var samples: [Double] = []
    samples.reserveCapacity(headers.count)
    let clock = ContinuousClock()
    for header in headers {
        let start = clock.now
        _ = try credentials.authenticate(header, app: "bench", scope: .devices)
        let elapsed = clock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    samples.sort()
    return (samples[samples.count / 2], samples[samples.count * 99 / 100])
}

let es256Calls = min(calls, 5_000)  // signing them is the slow part of the setup
let hs256 = try tokens("HS256", count: calls).map { "Bearer \($0)" }
let es256 = try tokens("ES256", count: es256Calls).map { "Bearer \($0)" }
_ = try measure(Array(hs256.prefix(1000)))  // warm up
let results: [(String, (median: Double, p99: Double))] = [
    ("apiKey", try measure(Array(repeating: "Bearer \(apiKey)", count: calls))),
    ("hs256New", try measure(hs256)),
    ("es256New", try measure(es256)),
    // One token presented again and again (a session's calls): verified once, then remembered.
    ("tokenSeenBefore", try measure(Array(repeating: es256[0], count: calls))),
]
for (name, result) in results {
    print(String(format: "%-16@ median %7.2f µs   p99 %7.2f µs", name as NSString, result.median, result.p99))
}
let fields = results.map { String(format: "\"%@Micros\":%.2f", $0.0, $0.1.median) }.joined(separator: ",")
print("{\(fields)}")
