import Foundation
import ProviderSandbox
import ServiceKit
import Testing

@Suite("Sandbox settings from the environment")
struct SandboxConfigurationTests {
    let data = URL(fileURLWithPath: "/var/lib/herald")

    @Test("defaults, and every variable honoured")
    func values() throws {
        let defaults = try SandboxConfiguration.fromEnvironment([:], dataDirectory: data, httpHost: "0.0.0.0")
        #expect(defaults.httpsPort == 8443 && defaults.inboxCapacity == 10_000 && defaults.tokenLifetime == 3600)
        #expect(defaults.directory?.path == "/var/lib/herald/sandbox")
        let set = try SandboxConfiguration.fromEnvironment([
            "HERALD_SANDBOX_HTTPS_PORT": " off ", "HERALD_SANDBOX_HOSTNAMES": "herald-sandbox, ,10.0.0.5",
            "HERALD_SANDBOX_DIR": "/tmp/s", "HERALD_SANDBOX_INBOX_CAPACITY": "5", "HERALD_SANDBOX_TOKEN_LIFETIME": "60",
        ], dataDirectory: data, httpHost: "127.0.0.1")
        #expect(set.httpsPort == nil && set.hostnames == ["herald-sandbox", "10.0.0.5"] && set.directory?.path == "/tmp/s")
        #expect(set.inboxCapacity == 5 && set.tokenLifetime == 60 && set.httpsHost == "127.0.0.1")
    }

    @Test("bad values are configuration errors naming the variable", arguments: [
        ("HERALD_SANDBOX_HTTPS_PORT", "99999"), ("HERALD_SANDBOX_INBOX_CAPACITY", "0"),
        ("HERALD_SANDBOX_TOKEN_LIFETIME", "soon"),
    ])
    func errors(variable: String, value: String) {
        do {
            _ = try SandboxConfiguration.fromEnvironment([variable: value], dataDirectory: data, httpHost: "0.0.0.0")
            Issue.record("\(variable)=\(value) was accepted")
        } catch let error as ConfigurationError {
            #expect(error.setting == variable)
            #expect(error.message.contains(value))
        } catch {
            Issue.record("expected a ConfigurationError, got \(error)")
        }
    }

    @Test("an emulator's bad variable is a configuration error naming it when the sandbox starts", arguments: [
        ("HERALD_SANDBOX_FCM_ACCOUNTS", "/nonexistent/account.json"), ("HERALD_SANDBOX_APNS_KEYS", "TEAM:KEY:/nonexistent/key.p8"),
    ])
    func emulatorErrors(variable: String, value: String) throws {
        var configuration = try SandboxConfiguration.fromEnvironment([variable: value], dataDirectory: data, httpHost: "0.0.0.0")
        configuration.directory = nil
        configuration.demoCredentials = false
        do {
            _ = try Sandbox(configuration: configuration)
            Issue.record("\(variable)=\(value) was accepted")
        } catch let error as ConfigurationError {
            #expect(error.setting == variable)
            #expect(error.message.contains(value))
        } catch {
            Issue.record("expected a ConfigurationError, got \(error)")
        }
    }
}
