import HeraldServices
import Testing

/// Each executable's ports are its own: every provider declares its dispatcher's port in its
/// module, and a new one that took another's would collide in compose, Helm and `scripts/run`.
@Suite("Ports")
struct PortTests {
    /// The provider sandbox's HTTP and HTTPS ports (`SandboxService`, `SandboxConfiguration`).
    static let sandbox = [("herald-sandbox", 8090), ("herald-sandbox https", 8443)]

    @Test("no two executables, nor an executable and the sandbox, share a port")
    func noTwoExecutablesShareAPort() {
        let ports = HeraldExecutable.all.flatMap { executable in
            [(executable.name, executable.defaultPort)] + (executable.defaultOpsPort.map { [("\(executable.name) ops", $0)] } ?? [])
        } + Self.sandbox
        #expect(ports.count >= HeraldExecutable.all.count + 2)
        let shared = Dictionary(grouping: ports, by: \.1).filter { $0.value.count > 1 }
        #expect(shared.isEmpty, "shared ports: \(shared.mapValues { $0.map(\.0) })")
    }
}
