import Crypto
import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import HeraldStackTestSupport
import Messaging
import ServiceKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The whole pipeline as real processes on the test broker: herald-registration,
/// herald-preferences, herald-encryption, one or more herald-fcm and herald-hms, and
/// herald-gateway, sending to a provider sandbox (its FCM and its Push Kit). Each stack has its own app and API key; it talks to it only
/// through the gateway's HTTP API, as an upstream system and an app would. With `webhooks`,
/// herald-webhook runs too: the app's webhook (for type-3 sponsees) is the sandbox's
/// receiver `<app>-sponsor`, and a second app, `<app>-chat`, in webhook mode forwards
/// everything to the receiver `<app>-chat`; both sign with `webhookSecret`. With `callbacks`,
/// herald-callback runs too and the app's callbacks (`device.revoked`, `delivery.failed`, `event.completed`) go to the receiver
/// `<app>-callbacks`, signed with the same secret. Besides the stack's key (events, devices,
/// admin), the app has `key + "-console"` (the console scope only) and `key + "-upstream"`
/// (events and devices, no console).
final class HeraldStack: Sendable {
    let sandbox: TestSandbox
    let app: String
    let key: String
    let services: [ServiceProcess]
    /// The herald-registration and herald-preferences replicas (one of each unless asked).
    let registrations: [ServiceProcess]
    let preferences: [ServiceProcess]
    let dispatchers: [ServiceProcess]
    let hmsDispatchers: [ServiceProcess]
    /// herald-apns, with `apns` (the app then has an `apns` section).
    let apnsDispatchers: [ServiceProcess]
    /// The dispatchers of the other providers asked for (`providers`), by platform.
    let providerDispatchers: [Platform: [ServiceProcess]]
    /// The first gateway; `gateways` holds them all (each its own process on its own port).
    let gateway: ServiceProcess
    let gateways: [ServiceProcess]
    let webhookSecret: String
    /// The app's client-token keys: the HS256 secret and the ES256 private key (PEM) whose
    /// public key the apps file names, for minting tokens as the tenant's backend would.
    let clientTokenSecret: String
    let clientTokenPrivateKeyPEM: String
    /// What every service of the stack runs with (its apps file), for starting another.
    let environment: [String: String]

    /// The app in webhook mode (with `webhooks`); its API key is the stack's key + `-chat`.
    var chatApp: String { "\(app)-chat" }

    /// Herald's queues this stack's services consume; emptied first, so no earlier test's
    /// leftovers reach them.
    static let queues = [
        HeraldTopology.Queue.registrationEvents, HeraldTopology.Queue.preferencesResolved, HeraldTopology.Queue.encryptionAllowed,
        HeraldTopology.Queue.registrationRevocations, HeraldTopology.Queue.registrationOutcomes,
        HeraldTopology.Queue.registrationDeadLetters,
    ] + ProviderRegistry.herald.platforms.map { HeraldTopology.Queue.dispatch($0) }

    /// With `databaseURL`, Registration and Preferences keep their stores in that PostgreSQL
    /// database (and may run as several replicas); else each in SQLite files of its own. With
    /// `amqpURL`, the services use that broker (or cluster) instead of the test broker. With
    /// `apnsDispatchers`, the app has an `apns` section (so its iOS devices are APNs's).
    /// `environment` is added to every service's (TLS settings, say). `providers` runs that many
    /// dispatchers of each other provider the sandbox emulates, and gives the app its section
    /// for it (the one its emulator declares for the demo app).
    static func start(
        dispatchers count: Int = 1, hmsDispatchers hmsCount: Int = 1, apnsDispatchers apnsCount: Int = 0, providers: [Platform: Int] = [:],
        webhooks: Bool = false, callbacks: Bool = false, gateways gatewayCount: Int = 1,
        databaseURL: String? = nil, registrations registrationCount: Int = 1, preferences preferenceCount: Int = 1,
        amqpURL: String? = nil, quorumReplicas: Int? = nil, environment extra: [String: String] = [:]
    ) async throws -> HeraldStack {
        let sandbox = try await TestSandbox.start()
        let app = "e2e-\(UUID().uuidString.prefix(6).lowercased())"
        let key = "key-\(UUID().uuidString)"
        let config = sandbox.directory.appendingPathComponent("herald.yaml")
        // FCM and Push Kit always; APNs and the others when their dispatchers run.
        let sections: [Platform] = [.fcm, .hms] + (apnsCount > 0 ? [.apns] : []) + providers.filter { $0.value > 0 }.keys.sorted { $0.rawValue < $1.rawValue }
        let webhookSecret = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let secretFile = sandbox.directory.appendingPathComponent("webhook-secret")
        try Data(webhookSecret.utf8).write(to: secretFile)
        let clientTokenSecret = Data((0..<36).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let clientTokenKey = P256.Signing.PrivateKey()
        try Data(clientTokenSecret.utf8).write(to: sandbox.directory.appendingPathComponent("client-token-secret"))
        try Data(clientTokenKey.publicKey.pemRepresentation.utf8).write(to: sandbox.directory.appendingPathComponent("client-tokens.pem"))
        func webhook(_ name: String, mode: String) -> String {
            """
                delivery:
                  mode: \(mode)
                  url: http://127.0.0.1:\(sandbox.running.httpPort)/webhooks/\(name)
                  signingSecretFile: \(secretFile.path)
                  allowPrivateNetworks: true
            """
        }
        let callbackSection = """
                callbacks:
                  url: http://127.0.0.1:\(sandbox.running.httpPort)/webhooks/\(app)-callbacks
                  signingSecretFile: \(secretFile.path)
                  allowPrivateNetworks: true
                  events: [device.revoked, delivery.failed, event.completed]
            """
        func chatApp(app: String, key: String) -> String {
            """
              \(app)-chat:
                apiKeys:
                  - { id: e2e, sha256: \(sha256Hex(key + "-chat")), scopes: [events, devices, admin] }
            """
        }
        try Data("""
            apps:
            \(webhooks ? chatApp(app: app, key: key) + "\n" + webhook("\(app)-chat", mode: "webhook") : "")
              \(app):
            \(webhooks ? webhook("\(app)-sponsor", mode: "direct") : "")
            \(callbacks ? callbackSection : "")
                apiKeys:
                  - { id: e2e, sha256: \(sha256Hex(key)), scopes: [events, devices, admin] }
                  - { id: e2e-console, sha256: \(sha256Hex(key + "-console")), scopes: [console] }
                  - { id: e2e-upstream, sha256: \(sha256Hex(key + "-upstream")), scopes: [events, devices] }
                encryption: preferred
                clientTokens:
                  hmacSecretFile: client-token-secret
                  publicKeyFile: client-tokens.pem
                  maxLifetime: 3600
                defaultTTL: { smartid: { auth: 120 } }
            \(sections.compactMap { sandbox.settingsSection($0) }.joined(separator: "\n"))
            """.utf8).write(to: config)
        // Declared before the purge: a fresh broker has none of Herald's queues yet.
        try await TestBroker.admin.declare(HeraldTopology.all(.herald))
        for queue in queues { try await TestBroker.admin.purge(queue.name) }
        var environment = ["HERALD_CONFIG": config.path, "HERALD_LOG_LEVEL": "info", "HERALD_SHUTDOWN_TIMEOUT": "10"]
        if let databaseURL { environment["HERALD_DATABASE_URL"] = databaseURL }
        // Another broker (a cluster's nodes) than the test broker, whose queues the services declare.
        if let amqpURL { environment["HERALD_AMQP_URL"] = amqpURL }
        if let quorumReplicas { environment["HERALD_QUORUM_REPLICAS"] = String(quorumReplicas) }
        environment.merge(extra) { $1 }
        var services: [ServiceProcess] = []
        do {
            var registrations: [ServiceProcess] = []
            for _ in 0..<max(1, registrationCount) {
                registrations.append(try ServiceProcess("herald-registration", environment: environment))
                services.append(registrations[registrations.count - 1])
            }
            var preferences: [ServiceProcess] = []
            for _ in 0..<max(1, preferenceCount) {
                preferences.append(try ServiceProcess("herald-preferences", environment: environment))
                services.append(preferences[preferences.count - 1])
            }
            services.append(try ServiceProcess("herald-encryption", environment: environment))
            let dispatchers = try (0..<count).map { _ in try ServiceProcess("herald-fcm", environment: environment) }
            services += dispatchers
            let hmsDispatchers = try (0..<hmsCount).map { _ in try ServiceProcess("herald-hms", environment: environment) }
            services += hmsDispatchers
            let apnsDispatchers = try (0..<apnsCount).map { _ in try ServiceProcess("herald-apns", environment: environment) }
            services += apnsDispatchers
            var providerDispatchers: [Platform: [ServiceProcess]] = [:]
            for (platform, number) in providers.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                guard let executable = ProviderRegistry.herald[platform]?.executableName else { throw TestFailure("no provider for \(platform)") }
                providerDispatchers[platform] = try (0..<number).map { _ in try ServiceProcess(executable, environment: environment) }
                services += providerDispatchers[platform] ?? []
            }
            if webhooks { services.append(try ServiceProcess("herald-webhook", environment: environment)) }
            if callbacks { services.append(try ServiceProcess("herald-callback", environment: environment)) }
            // Each into `services` as soon as it runs, so a failure to start the next discards it.
            var gateways: [ServiceProcess] = []
            // The console's overview shows every other service's readiness.
            var gatewayEnvironment = environment
            gatewayEnvironment["HERALD_CONSOLE_SERVICES"] = services.enumerated()
                .map { "\($0.element.name.replacingOccurrences(of: "herald-", with: ""))-\($0.offset + 1)=http://127.0.0.1:\($0.element.healthPort)" }
                .joined(separator: ",")
            for _ in 0..<max(1, gatewayCount) {
                gateways.append(try ServiceProcess("herald-gateway", environment: gatewayEnvironment))
                services.append(gateways[gateways.count - 1])
            }
            let stack = HeraldStack(
                sandbox: sandbox, app: app, key: key, services: services, registrations: registrations, preferences: preferences, dispatchers: dispatchers,
                hmsDispatchers: hmsDispatchers, apnsDispatchers: apnsDispatchers, providerDispatchers: providerDispatchers, gateways: gateways, webhookSecret: webhookSecret,
                clientTokenSecret: clientTokenSecret, clientTokenPrivateKeyPEM: clientTokenKey.pemRepresentation, environment: environment)
            for service in stack.services { try await service.waitUntilReady() }
            return stack
        } catch {
            services.forEach { $0.discard() }
            await sandbox.stop()
            throw error
        }
    }

    private init(
        sandbox: TestSandbox, app: String, key: String, services: [ServiceProcess], registrations: [ServiceProcess], preferences: [ServiceProcess],
        dispatchers: [ServiceProcess],
        hmsDispatchers: [ServiceProcess], apnsDispatchers: [ServiceProcess], providerDispatchers: [Platform: [ServiceProcess]], gateways: [ServiceProcess], webhookSecret: String,
        clientTokenSecret: String, clientTokenPrivateKeyPEM: String, environment: [String: String]
    ) {
        self.clientTokenSecret = clientTokenSecret
        self.clientTokenPrivateKeyPEM = clientTokenPrivateKeyPEM
        self.apnsDispatchers = apnsDispatchers
        self.providerDispatchers = providerDispatchers
        self.environment = environment
        self.webhookSecret = webhookSecret
        self.sandbox = sandbox
        self.app = app
        self.key = key
        self.services = services
        self.registrations = registrations
        self.preferences = preferences
        self.dispatchers = dispatchers
        self.hmsDispatchers = hmsDispatchers
        self.gateway = gateways[0]
        self.gateways = gateways
    }

    /// Stops every service with SIGTERM (each must exit 0), then the sandbox.
    func stop() async throws {
        var failures: [String] = []
        for service in services.reversed() where service.process.isRunning {
            try await service.terminate()
            if service.process.terminationStatus != 0 { failures.append("\(service.name) exited \(service.process.terminationStatus)") }
        }
        services.forEach { $0.discard() }
        await sandbox.stop()
        if !failures.isEmpty { throw TestFailure(failures.joined(separator: "; ")) }
    }

    /// Kills whatever still runs (after a failed test).
    func discard() async {
        services.forEach { $0.discard() }
        await sandbox.stop()
    }

    /// One call to the gateway's API under this stack's app, with the stack's key or `bearer`
    /// (a client token); status 0 when no answer came.
    func call(
        _ method: String, _ path: String, _ json: [String: Any]? = nil, app: String? = nil, gateway: Int = 0, bearer: String? = nil
    ) async -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(gateways[gateway].port)/v1/apps/\(app ?? self.app)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 10
        request.setValue("Bearer \(bearer ?? (app == chatApp ? key + "-chat" : key))", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try? JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        guard let (data, response) = try? await URLSession.shared.data(for: request) else { return (0, [:]) }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// One call with a raw body and headers, answering the status, the headers (names in
    /// lower case) and the body; status 0 when no answer came.
    func exchange(
        _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:], app: String? = nil
    ) async -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(gateways[0].port)/v1/apps/\(app ?? self.app)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 10
        request.setValue("Bearer \(app == chatApp ? key + "-chat" : key)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        guard let (data, response) = try? await URLSession.shared.data(for: request), let http = response as? HTTPURLResponse else { return (0, [:], Data()) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return (http.statusCode, fields, data)
    }

    /// Turns Sudo email on for a device, as the kits' `initEmailNotifications` does: the
    /// device's configuration gets email's rule-less entry (email is opt-in by default).
    func enableEmail(deviceId: String) async throws {
        try await expectOK("PUT", "/devices/\(deviceId)/configuration", ["entries": [["service": "sudo-email", "enabled": true]]])
    }

    /// A POST with no `Authorization` header to `path` below the gateway's root (an ingest URL,
    /// a signed-out unregister), answering the status and body; status 0 when no answer came.
    func postWithoutCredential(_ path: String, body: Data, headers: [String: String] = [:]) async -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(gateway.port)\(path)")!)
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        guard let (data, response) = try? await URLSession.shared.data(for: request) else { return (0, Data()) }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A call that must succeed (2xx).
    @discardableResult
    func expectOK(_ method: String, _ path: String, _ json: [String: Any]? = nil, app: String? = nil, gateway: Int = 0) async throws -> [String: Any] {
        let answer = await call(method, path, json, app: app, gateway: gateway)
        guard (200..<300).contains(answer.status) else { throw TestFailure("\(method) \(path) answered \(answer.status): \(answer.json)") }
        return answer.json
    }

    /// Posts a canonical event as an upstream should: a 503 (the broker did not confirm in
    /// time, which can happen while the whole suite loads two cores) or no answer is sent
    /// again (the event id makes a repeat harmless); anything but a 202 throws.
    func postEvent(_ body: [String: Any]) async throws {
        var answer = await call("POST", "/events", body)
        while answer.status == 503 || answer.status == 0 {
            try await Task.sleep(for: .seconds(1))
            answer = await call("POST", "/events", body)
        }
        guard answer.status == 202 else { throw TestFailure("POST /events answered \(answer.status): \(answer.json)") }
    }

    /// What the sandbox accepted for `token`, as messages of `provider`.
    func received(_ token: String, provider: String = "fcm") -> [[String: Any]] {
        sandbox.state.messages(provider: provider, token: token).map(\.message)
    }

    /// Each delivery's latest status for an event, from `GET /events/{eventId}`.
    func deliveries(of eventId: String, app: String? = nil) async -> [[String: Any]] {
        let answer = await call("GET", "/events/\(eventId)", app: app)
        return (answer.json["event"] as? [String: Any])?["deliveries"] as? [[String: Any]] ?? []
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
