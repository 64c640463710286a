import Foundation
import Messaging

/// The certificates `scripts/test` makes for the tests (scripts/lib/tls.sh), in
/// `HERALD_TEST_TLS_DIR`, and the TLS listeners of the test broker (`HERALD_TEST_AMQPS_PORT`)
/// and the test PostgreSQL server that serve the certificate for `localhost` they hold. A test
/// that uses them declares `.needs(.tls)`.
public enum TestTLS {
    public static var directory: URL? {
        ProcessInfo.processInfo.environment["HERALD_TEST_TLS_DIR"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// A file of the test certificates: `ca.pem`, `other-ca.pem` (a CA that signed nothing
    /// here), `client.pem` and `client.key`.
    public static func file(_ name: String) throws -> String {
        guard let directory else { throw TestFailure("no test certificates: run scripts/test, or set HERALD_TEST_TLS_DIR") }
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.isReadableFile(atPath: path) else { throw TestFailure("no \(path): scripts/lib/tls.sh makes it") }
        return path
    }

    /// The test broker's TLS listener: its user, password and vhost, on `host` (the
    /// certificate names `localhost` only, so `127.0.0.1` is a wrong host name for it).
    public static func amqpsURLString(host: String = "localhost") -> String {
        let url = TestBroker.url
        let vhost = url.virtualHost == "/" ? "" : url.virtualHost.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url.virtualHost
        return "amqps://\(url.user):\(url.password)@\(host):\(TestBroker.tlsPort)/\(vhost)"
    }

    /// The test broker over TLS, verified against `caFile` (the tests' CA unless given).
    public static func amqpsURL(host: String = "localhost", caFile: String? = nil, clientCertificate: Bool = false) throws -> AMQPURL {
        var url = try AMQPURL(amqpsURLString(host: host))
        url.tls = AMQPTLS(
            caFile: try caFile ?? file("ca.pem"),
            certificateFile: clientCertificate ? try file("client.pem") : nil,
            keyFile: clientCertificate ? try file("client.key") : nil)
        return url
    }
}
