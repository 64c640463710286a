import FCM
import Foundation
import HeraldDomain
import HeraldModel
import HeraldSources
import Logging
import ServiceKit
import Messaging
import Testing

@Suite("Reading the service environment")
struct ServiceEnvironmentTests {
    /// The configuration error `environment` is refused with, or nil when it is taken.
    static func error(_ environment: [String: String]) -> ConfigurationError? {
        do {
            _ = try ServiceEnvironment(environment, defaultPort: 1)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test("defaults run everything on one machine")
    func defaults() throws {
        let environment = try ServiceEnvironment([:], defaultPort: 8084)
        #expect(environment.amqpURL.host == "localhost" && environment.amqpURL.port == 5672)
        #expect(environment.amqpURL.virtualHost == "/")
        #expect(environment.httpPort == 8084)
        #expect(environment.httpHost == "0.0.0.0")
        #expect(environment.logLevel == .info)
        #expect(environment.logFormat == .json)
        #expect(environment.configPath == nil)
        #expect(environment.shutdownTimeout == .seconds(30))
        #expect(environment.confirmTimeout == .seconds(30))
        #expect(environment.dataDirectory.lastPathComponent == "data")
    }

    @Test("every variable is honoured")
    func overrides() throws {
        let environment = try ServiceEnvironment([
            "HERALD_AMQP_URL": "amqp://herald:s3cret@mq.internal:5673/prod%2Fa?heartbeat=15",
            "HERALD_HTTP_PORT": "9000", "HERALD_HTTP_HOST": "127.0.0.1",
            "HERALD_DATA_DIR": "/var/lib/herald", "HERALD_LOG_LEVEL": "DEBUG",
            "HERALD_LOG_FORMAT": "text", "HERALD_CONFIG": "/etc/herald.yaml",
            "HERALD_SHUTDOWN_TIMEOUT": "2.5", "HERALD_AMQP_CONFIRM_TIMEOUT": "90",
        ], defaultPort: 8084)
        #expect(environment.amqpURL.user == "herald" && environment.amqpURL.password == "s3cret")
        #expect(environment.amqpURL.host == "mq.internal" && environment.amqpURL.port == 5673)
        #expect(environment.amqpURL.virtualHost == "prod/a")
        #expect(environment.amqpURL.heartbeat == 15)
        #expect(environment.amqpURL.description == "amqp://herald:***@mq.internal:5673/prod%2Fa")
        #expect(environment.httpPort == 9000 && environment.httpHost == "127.0.0.1")
        #expect(environment.dataDirectory.path == "/var/lib/herald")
        #expect(environment.logLevel == .debug && environment.logFormat == .text)
        #expect(environment.configPath == "/etc/herald.yaml")
        #expect(environment.shutdownTimeout == .milliseconds(2500))
        #expect(environment.confirmTimeout == .seconds(90))
    }

    @Test("the broker password can come from a file, so no password needs to be in the environment")
    func passwordFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("amqp-password-\(UUID().uuidString)")
        try Data("s3cr3t-from-file\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = try ServiceEnvironment([
            "HERALD_AMQP_URL": "amqp://herald@mq:5672/", "HERALD_AMQP_PASSWORD_FILE": file.path,
        ], defaultPort: 1)
        #expect(environment.amqpURL.user == "herald" && environment.amqpURL.password == "s3cr3t-from-file")
        #expect(environment.amqpURL.host == "mq")
        #expect(!environment.amqpURL.description.contains("s3cr3t"))
        // A missing file names the variable and the file, never a password.
        #expect(throws: ConfigurationError.self) {
            try ServiceEnvironment(["HERALD_AMQP_PASSWORD_FILE": "/nonexistent/amqp-password"], defaultPort: 1)
        }
    }

    @Test("a cluster's nodes are listed comma-separated: the first is the broker, the others its failover, each with the password file's password")
    func clusterNodes() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("amqp-password-\(UUID().uuidString)")
        try Data("from-file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = try ServiceEnvironment([
            "HERALD_AMQP_URL": "amqp://herald@mq-1:5672/, amqp://herald@mq-2:5673/,amqp://herald@mq-3/", "HERALD_AMQP_PASSWORD_FILE": file.path,
            "HERALD_QUORUM_REPLICAS": "3",
        ], defaultPort: 1)
        #expect(environment.amqpURL.host == "mq-1")
        #expect(environment.amqpFailover.map { "\($0.host):\($0.port)" } == ["mq-2:5673", "mq-3:5672"])
        #expect(([environment.amqpURL] + environment.amqpFailover).allSatisfy { $0.password == "from-file" })
        #expect(environment.quorumReplicas == 3)
        #expect(try ServiceEnvironment([:], defaultPort: 1).amqpFailover.isEmpty)
        #expect(try ServiceEnvironment([:], defaultPort: 1).quorumReplicas == nil)
    }

    @Test("a PostgreSQL URL is taken for the stores, anything else is refused naming the variable")
    func databaseURL() throws {
        #expect(try ServiceEnvironment(["HERALD_DATABASE_URL": "postgres://herald:x@db:5432/herald"], defaultPort: 1).databaseURL == "postgres://herald:x@db:5432/herald")
        #expect(try ServiceEnvironment([:], defaultPort: 1).databaseURL == nil)
        #expect {
            try ServiceEnvironment(["HERALD_DATABASE_URL": "mysql://db/herald"], defaultPort: 1)
        } throws: { ($0 as? ConfigurationError)?.setting == "HERALD_DATABASE_URL" }
    }

    @Test("an amqps:// broker gets port 5671 and the TLS settings; an amqp:// one is in clear")
    func brokerTLS() throws {
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem")
        try Data("a CA".utf8).write(to: ca)
        defer { try? FileManager.default.removeItem(at: ca) }
        let environment = try ServiceEnvironment([
            "HERALD_AMQP_URL": "amqps://herald:pw@mq-1/,amqps://herald:pw@mq-2:5999/",
            "HERALD_AMQP_CA_FILE": ca.path, "HERALD_AMQP_VERIFY_HOSTNAME": "false",
        ], defaultPort: 1)
        #expect(environment.amqpURL.port == 5671)
        #expect(environment.amqpURL.tls == AMQPTLS(caFile: ca.path, verifyHostname: false))
        #expect(environment.amqpFailover.map(\.port) == [5999])
        #expect(environment.amqpFailover.first?.tls?.caFile == ca.path, "every node of the cluster is verified alike")
        #expect(environment.amqpURL.description == "amqps://herald:***@mq-1:5671/")
        let clear = try ServiceEnvironment(["HERALD_AMQP_URL": "amqp://herald:pw@mq-1/"], defaultPort: 1)
        #expect(clear.amqpURL.tls == nil)
        #expect(clear.amqpURL.port == 5672)
    }

    @Test("TLS settings beside an amqp:// broker, an unreadable file or half a client certificate are refused")
    func brokerTLSErrors() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pem-\(UUID().uuidString).pem")
        try Data("pem".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let inClear = Self.error(["HERALD_AMQP_URL": "amqps://a/,amqp://b/", "HERALD_AMQP_CA_FILE": file.path])
        #expect(inClear?.setting == "HERALD_AMQP_CA_FILE")
        #expect(inClear?.message.contains("amqp://guest:***@b:5672/, which is in clear: write amqps://") == true, "\(String(describing: inClear))")
        #expect(Self.error(["HERALD_AMQP_URL": "amqps://a/", "HERALD_AMQP_CA_FILE": "/nonexistent/ca.pem"])?.message == "cannot read the file /nonexistent/ca.pem")
        #expect(Self.error(["HERALD_AMQP_URL": "amqps://a/", "HERALD_AMQP_CERT_FILE": file.path])?.setting == "HERALD_AMQP_CERT_FILE")
        #expect(Self.error(["HERALD_AMQP_URL": "amqps://a/", "HERALD_AMQP_VERIFY_HOSTNAME": "maybe"])?.message == "\"maybe\" is not true or false")
    }

    @Test("bad values name the variable and what is wrong")
    func errors() {
        #expect(Self.error(["HERALD_HTTP_PORT": "80a"])?.setting == "HERALD_HTTP_PORT")
        #expect(Self.error(["HERALD_HTTP_PORT": "70000"])?.message == "\"70000\" is not a port number (0-65535)")
        #expect(Self.error(["HERALD_AMQP_URL": "http://x"])?.message.contains("unsupported scheme \"http\"") == true)
        #expect(Self.error(["HERALD_LOG_LEVEL": "loud"])?.setting == "HERALD_LOG_LEVEL")
        #expect(Self.error(["HERALD_SHUTDOWN_TIMEOUT": "-1"])?.setting == "HERALD_SHUTDOWN_TIMEOUT")
        #expect(Self.error(["HERALD_AMQP_URL": "amqp://a/,http://b"])?.message.contains("http://b") == true, "the bad node is named")
        #expect(Self.error(["HERALD_AMQP_URL": " , "])?.setting == "HERALD_AMQP_URL")
        #expect(Self.error(["HERALD_QUORUM_REPLICAS": "0"])?.setting == "HERALD_QUORUM_REPLICAS")
        #expect(Self.error(["HERALD_AMQP_CONFIRM_TIMEOUT": "0"])?.message == "\"0\" is not a number of seconds from 1 to 3600")
    }
}

@Suite("The apps YAML")
struct AppsConfigurationTests {
    @Test("a full app parses, with defaults and relative paths resolved against the file's folder")
    func fullApp() throws {
        let yaml = """
        apps:
          demo:
            apiKeys:
              - id: ci
                sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
                scopes: [events]
              - id: ops
                file: secrets/ops-key
            fcm:
              serviceAccountFile: secrets/fcm.json
              endpoint: https://127.0.0.1:8443
            delivery:
              mode: webhook
              url: https://tenant.example/hook
              signingSecretFile: /run/secrets/hook
            templates:
              message.created:
                en: { title: "{user} ({channel})", body: "{text}" }
          minimal: {}
        """
        let config = try AppsConfiguration.parse(yaml, relativeTo: URL(fileURLWithPath: "/etc/herald"))
        let demo = try #require(config.apps["demo"])
        #expect(demo.apiKeys.map(\.id) == ["ci", "ops"])
        #expect(demo.apiKeys[0].scopes == [.events])
        #expect(demo.apiKeys[1].file == "/etc/herald/secrets/ops-key")
        #expect(try demo.settings(FCMSettings.self, app: "demo")?.serviceAccountFile == "/etc/herald/secrets/fcm.json")
        #expect(demo.delivery.mode == .webhook && demo.delivery.signingSecretFile == "/run/secrets/hook")
        #expect(demo.templates["message.created"]?["en"]?.title == "{user} ({channel})")
        #expect(demo.encryption == .preferred)
        let minimal = try #require(config.apps["minimal"])
        #expect(minimal.apiKeys.isEmpty && minimal.delivery.mode == .direct)
        #expect(try minimal.settings(FCMSettings.self, app: "minimal") == nil)
    }

    @Test("mistakes are reported with their path")
    func errors() {
        func error(_ yaml: String) -> String? {
            do {
                _ = try HeraldConfiguration(apps: AppsConfiguration.parse(yaml), sources: .herald)
                return nil
            } catch {
                return (error as? ConfigurationError)?.description
            }
        }
        #expect(error("apps:\n  demo:\n    apiKeys:\n      - id: a\n        sha256: nothex") == "apps.demo.apiKeys[0].sha256: must be 64 hex digits")
        #expect(error("apps:\n  demo:\n    apiKeys:\n      - id: a") == "apps.demo.apiKeys[0]: give exactly one of sha256 or file")
        #expect(error("apps:\n  demo:\n    delivery:\n      mode: webhook") == "apps.demo.delivery.url: webhook mode needs an http(s) URL")
        #expect(error("apps:\n  demo:\n    encryption: sometimes")?.hasPrefix("HERALD_CONFIG: apps.demo.encryption") == true)
        #expect(error("apps:\n  \"bad app\": {}") == "apps.bad app: an app id is 1-64 letters, digits, '.', '_' or '-'")
        #expect(error("apps:\n  demo:\n    rateLimits: { key: { perSecond: 0, burst: 5 } }") == "apps.demo.rateLimits.key.perSecond: must be a positive number")
        #expect(error("apps:\n  demo:\n    rateLimits: { app: { perSecond: 10, burst: 0 } }") == "apps.demo.rateLimits.app.burst: must be at least 1")
        #expect(error("apps:\n  demo:\n    defaultTTL: { smartid: { auth: -1 } }") == "apps.demo.defaultTTL.smartid.auth: must not be negative")
        #expect(error("apps:\n  demo:\n    defaultTTL: { upstra: { \"*\": 2419201 } }") == "apps.demo.defaultTTL.upstra.*: must be at most 2419200 (four weeks)")
        #expect(error("apps:\n  demo:\n    defaultTTL: { smart-id: { auth: 60 } }") == "apps.demo.defaultTTL.smart-id: is not a source; use one of \(SourceRegistry.herald.names.map(\.rawValue).joined(separator: ", "))")
        #expect(error("apps:\n  demo:\n    callbacks: { url: ftp://x, signingSecretFile: s, events: [device.revoked] }") == "apps.demo.callbacks.url: \"ftp://x\" is not an http(s) URL with a host")
        #expect(error("apps:\n  demo:\n    callbacks: { url: https://x.example, signingSecretFile: s, events: [] }") == "apps.demo.callbacks.events: name at least one of device.revoked, delivery.failed, delivery.expired, delivery.delivered, event.completed")
        #expect(error("apps:\n  demo:\n    callbacks: { url: https://x.example, signingSecretFile: s, events: [device.gone] }")?.contains("apps.demo.callbacks.events") == true)
        let sha = String(repeating: "ab", count: 32)
        #expect(error("apps:\n  demo:\n    ingestURLs: [{ id: v, source: verity, sha256: \(sha) }]") == "apps.demo.ingestURLs[0].source: one of \(SourceRegistry.herald.ingestSources.joined(separator: ", "))")
        #expect(error("apps:\n  demo:\n    ingestURLs: [{ id: v, source: evernym, sha256: abc }]") == "apps.demo.ingestURLs[0].sha256: must be 64 hex digits (the secret's SHA-256)")
        #expect(error("apps:\n  demo:\n    ingestURLs: [{ id: v, source: evernym, sha256: \(sha), networks: [office] }]") == "apps.demo.ingestURLs[0].networks[0]: must be an IPv4 or IPv6 network, as 192.0.2.0/24 or 2001:db8::/32")
        #expect(error("apps:\n  demo:\n    ingestURLs: [{ id: v, source: evernym, sha256: \(sha) }, { id: v, source: smartid, sha256: \(sha) }]") == "apps.demo.ingestURLs[1].id: \"v\" is used twice")
    }

    @Test("an app's callbacks name their endpoint, its secret file (resolved against the file's folder) and the events wanted")
    func callbacks() throws {
        let config = try AppsConfiguration.parse("""
        apps:
          demo:
            callbacks: { url: https://tenant.example/callbacks, signingSecretFile: secrets/callbacks, events: [device.revoked] }
          quiet: {}
        """, relativeTo: URL(fileURLWithPath: "/etc/herald"))
        let callbacks = try #require(config.apps["demo"]?.callbacks)
        #expect(callbacks.url == "https://tenant.example/callbacks" && callbacks.signingSecretFile == "/etc/herald/secrets/callbacks")
        #expect(callbacks.wants(.deviceRevoked) && !callbacks.allowPrivateNetworks)
        #expect(config.apps["quiet"]?.callbacks == nil)
    }

    @Test("an event without a TTL gets the app's for its source and kind, then the app's for any kind of the source, then Herald's")
    func defaultTTL() throws {
        let yaml = """
        apps:
          demo:
            defaultTTL:
              smartid: { auth: 120 }
              upstra: { "*": 86400, message.created: 600 }
          other:
            defaultTTL:
              smartid: { "*": 60 }
          minimal: {}
        """
        let config = try AppsConfiguration.parse(yaml)
        let sources = SourceRegistry.herald
        func ttl(_ app: String, _ source: EventSource, _ kind: String) -> Int? { sources.defaultTTL(source: source, kind: kind, app: config.apps[app]) }
        #expect(ttl("demo", .smartID, "auth") == 120)
        #expect(ttl("demo", .smartID, "sign") == 300, "the source's own for what the app leaves out")
        #expect(ttl("demo", .upstra, "message.created") == 600)
        #expect(ttl("demo", .upstra, "member.joined") == 86400)
        #expect(ttl("demo", .webcom, "value.changed") == nil, "the provider's default")
        #expect(ttl("other", .smartID, "auth") == 60, "the app's any-kind wins over the source's")
        #expect(ttl("minimal", .smartID, "auth") == 300)
        #expect(ttl("minimal", .api, "auth") == nil)
    }

    @Test("a missing file is a clear error")
    func missingFile() {
        #expect(throws: ConfigurationError(.missingFile, setting: "HERALD_CONFIG", "cannot read /nonexistent/herald.yaml")) {
            try AppsConfiguration.load(path: "/nonexistent/herald.yaml")
        }
    }
}

@Suite("Log output")
struct LogRedactionTests {
    @Test("a JSON log line carries the message and metadata, and never a token or key in clear")
    func redactsSensitiveMetadata() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-log-\(UUID()).jsonl")
        FileManager.default.createFile(atPath: path.path, contents: nil)
        let handle = try FileHandle(forWritingTo: path)
        let logger = Logger(label: "test") { label in
            JSONLogHandler(label: label, service: "herald-test", level: .debug, output: LogOutput(handle))
        }
        logger.info("sent", metadata: [
            "deliveryId": "d-1", "token": "fcm-secret-token", "deviceToken": "abc", "p256dh": "BPUB",
            "apiKey": "k-123", "headers": ["Authorization": "Bearer xyz", "Accept": "json"],
        ])
        try handle.close()
        let text = try String(contentsOf: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["msg"] as? String == "sent")
        #expect(object["level"] as? String == "info")
        #expect(object["service"] as? String == "herald-test")
        #expect(object["deliveryId"] as? String == "d-1")
        for secret in ["fcm-secret-token", "abc", "BPUB", "k-123", "Bearer xyz"] {
            #expect(!text.contains(secret), "\(secret) leaked into the log")
        }
        #expect((object["headers"] as? [String: Any])?["Accept"] as? String == "json")
        try? FileManager.default.removeItem(at: path)
    }
}
