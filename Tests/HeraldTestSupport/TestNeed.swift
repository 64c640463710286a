import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Something a test needs from outside its process. `scripts/test` provides every one. A test
/// whose need is not met fails, saying what is missing and how to provide it; only where skips
/// are allowed (`HERALD_TEST_ALLOW_SKIPS=1`) is it skipped instead, with that reason. No test is
/// skipped silently.
public enum TestNeed: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The test RabbitMQ node (`HERALD_TEST_AMQP_URL`), answering.
    case broker
    /// The test PostgreSQL server (`HERALD_TEST_DATABASE_URL`), answering.
    case database
    /// The test certificates (`HERALD_TEST_TLS_DIR`) that the broker's and the database's TLS
    /// listeners serve.
    case tls
    /// A Python with the independent checkers from PyPI (`HERALD_PYTHON`, or `.build/python`).
    case python
    /// A JDK and JUnit 4 for the Java client kit.
    case java
    /// Root, to start a service as another user.
    case root

    public var description: String {
        switch self {
        case .broker: "the test RabbitMQ node"
        case .database: "the test PostgreSQL server"
        case .tls: "the test certificates"
        case .python: "the Python checkers"
        case .java: "javac and JUnit 4"
        case .root: "root"
        }
    }

    /// What is missing and how to provide it, or nil when the need is met.
    public var missing: String? {
        switch self {
        case .broker:
            guard TestBroker.isConfigured else { return "HERALD_TEST_AMQP_URL is not set: run scripts/test, which starts a RabbitMQ node of its own and sets it" }
            return TestBroker.isReachable ? nil : "no RabbitMQ answers at \(TestBroker.url) (HERALD_TEST_AMQP_URL)"
        case .database:
            guard let url = TestDatabase.url else { return "HERALD_TEST_DATABASE_URL is not set: run scripts/test, which starts a PostgreSQL cluster of its own and sets it" }
            guard let components = URLComponents(string: url), let host = components.host else { return "HERALD_TEST_DATABASE_URL (\(url)) is not a URL" }
            return tcpAnswers(host: host, port: components.port ?? 5432) ? nil : "no PostgreSQL answers at \(host):\(components.port ?? 5432) (HERALD_TEST_DATABASE_URL)"
        case .tls:
            guard let directory = TestTLS.directory else { return "HERALD_TEST_TLS_DIR is not set: run scripts/test, which makes the certificates (scripts/lib/tls.sh)" }
            let absent = ["ca.pem", "other-ca.pem", "client.pem", "client.key"].filter { !FileManager.default.isReadableFile(atPath: directory.appendingPathComponent($0).path) }
            return absent.isEmpty ? nil : "\(directory.path) lacks \(absent.joined(separator: ", ")) (scripts/lib/tls.sh makes them)"
        case .python:
            return PythonChecker.python == nil ? "no Python with the checkers of Tests/Interop/requirements.txt: run scripts/test, or set HERALD_PYTHON" : nil
        case .java:
            return JavaKit.isAvailable ? nil : "no javac or junit4 (Debian's openjdk-17-jdk-headless and junit4): run scripts/test"
        case .root:
            return getuid() == 0 ? nil : "not running as root"
        }
    }

    /// Whether skips are allowed (`HERALD_TEST_ALLOW_SKIPS=1`): a test whose need is not met is
    /// then skipped rather than failed.
    public static var skipsAllowed: Bool { ProcessInfo.processInfo.environment["HERALD_TEST_ALLOW_SKIPS"] == "1" }

    /// Whether a test with `needs` runs: yes when every one is met; no (it is skipped) when one
    /// is not and skips are allowed; otherwise a failure naming what is missing.
    static func check(_ needs: [TestNeed]) throws -> Bool {
        let missing = needs.compactMap { need in need.missing.map { "\(need): \($0)" } }
        if missing.isEmpty { return true }
        if skipsAllowed { return false }
        throw TestFailure("this test needs \(missing.joined(separator: "; ")). (HERALD_TEST_ALLOW_SKIPS=1 skips it instead.)")
    }
}

/// Whether something accepts TCP connections at `host`:`port`.
func tcpAnswers(host: String, port: Int) -> Bool {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var result: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else { return false }
    defer { freeaddrinfo(result) }
    let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
}

extension Trait where Self == ConditionTrait {
    /// The test (or every test of the suite) needs `needs`: it fails, naming what is missing,
    /// when one is not met, unless skips are allowed (`HERALD_TEST_ALLOW_SKIPS=1`).
    public static func needs(_ needs: TestNeed...) -> Self {
        .enabled("needs \(needs.map(\.description).joined(separator: " and ")), and HERALD_TEST_ALLOW_SKIPS=1 skips it where missing") {
            try TestNeed.check(needs)
        }
    }

    /// The suite takes the broker down, raises its alarms or loads both cores, so it runs on its
    /// own after the main run: `scripts/test` leaves it out of that run (`--skip`) and runs it
    /// alone with `HERALD_TEST_ALONE=1`. Anywhere else it is skipped, with this reason.
    public static var runsAlone: Self {
        .enabled("runs alone after the main run (scripts/test does that; by hand: HERALD_TEST_ALONE=1 swift test --filter <suite>)") {
            ProcessInfo.processInfo.environment["HERALD_TEST_ALONE"] == "1"
        }
    }
}
