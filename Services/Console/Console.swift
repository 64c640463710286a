import HeraldDomain
import Foundation
import Gateway
import HeraldControl
import Logging
import ServiceKit

/// What the Herald Console asks of the gateway beyond the public API: signing in, the
/// system's state for the overview (queues, consumers, dead letters, readiness), the app's
/// dead letters (list, show, replay, purge, through `DeadLetterQueue` as `heraldctl` does)
/// and sample events for the test-push form. Every call authorizes its key for the
/// `console` scope (or `admin`) on the app first.
public struct Console: Sendable {
    let gateway: Gateway
    let configuration: ConsoleConfiguration
    /// The gateway's own readiness, shown first among the services.
    let readiness: Readiness?
    let logger: Logger

    public init(gateway: Gateway, configuration: ConsoleConfiguration, readiness: Readiness? = nil, logger: Logger = Logger(label: "herald.console")) {
        self.gateway = gateway
        self.configuration = configuration
        self.readiness = readiness
        self.logger = logger
    }

    /// A JSON answer of the console's own API.
    public typealias Object = [String: Any]

    /// Signing in: the key may use the console for `app`. Answers the app, the key's id and
    /// the platforms devices register with (the registry's, so the console names no provider).
    func signIn(_ authorization: String?, app: String) throws(GatewayError) -> Object {
        let keyId = try gateway.authorizeConsole(authorization, app: app)
        logger.info("console sign-in", metadata: ["app": "\(app)", "keyId": "\(keyId)"])
        var answer: Object = ["app": app, "keyId": keyId, "platforms": gateway.providers.devicePlatforms.map(\.rawValue)]
        if let traceURL = configuration.traceURL { answer["traceURL"] = traceURL }
        return answer
    }

    /// The overview's system part: every Herald queue's depth and consumers, the app's dead
    /// letters waiting, and each service's readiness.
    func system(_ authorization: String?, app: String) async throws(GatewayError) -> Object {
        _ = try gateway.authorizeConsole(authorization, app: app)
        var services: [Object] = []
        if let readiness {
            let checks = readiness.evaluate()
            services.append(ServiceReadiness.Report(
                name: "gateway", ready: checks.allSatisfy(\.ready),
                checks: Dictionary(uniqueKeysWithValues: checks.map { ($0.name, $0.ready ? "ok" : "failing") })).json)
        }
        services += await ServiceReadiness.check(configuration.services).map(\.json)
        var answer: Object = ["services": services]
        do {
            let (statuses, management) = try await QueueInspector(amqpURL: configuration.amqpURL, managementURL: configuration.managementURL).statuses()
            answer["management"] = management
            answer["queues"] = statuses.filter(\.exists).map { status -> Object in
                var queue: Object = ["name": status.name, "ready": status.ready, "consumers": status.consumers]
                if let unacknowledged = status.unacknowledged { queue["unacknowledged"] = unacknowledged }
                if let rate = status.publishRate { queue["publishRate"] = rate }
                if let rate = status.deliverRate { queue["deliverRate"] = rate }
                return queue
            }
            answer["deadLetters"] = try await letters(of: app).count
        } catch {
            answer["brokerError"] = "\(error)"
        }
        return answer
    }

    /// The app's dead letters, oldest first (of the first `deadLetterLimit` in the queue).
    func deadLetters(_ authorization: String?, app: String) async throws(GatewayError) -> Object {
        _ = try gateway.authorizeConsole(authorization, app: app)
        let letters = try await letters(of: app)
        return ["count": letters.count, "deadLetters": letters.map(\.summary)]
    }

    /// One of the app's dead letters with its headers and body.
    func deadLetter(_ authorization: String?, app: String, id: String) async throws(GatewayError) -> Object {
        _ = try gateway.authorizeConsole(authorization, app: app)
        guard let letter = try await letters(of: app).first(where: { $0.isNamed(by: [id]) }) else {
            throw GatewayError(404, "Not Found", "no dead letter \(id) of app \(app) among the first \(configuration.deadLetterLimit)")
        }
        return ["deadLetter": letter.detail]
    }

    /// Publishes the named dead letters of the app again to where they came from.
    func replay(_ authorization: String?, app: String, ids: [String]) async throws(GatewayError) -> Object {
        let keyId = try gateway.authorizeConsole(authorization, app: app)
        let replayed = try await control { () async throws(ControlError) -> [DeadLetter] in
            try await queue.replay(limit: configuration.deadLetterLimit) { $0.app == app && $0.isNamed(by: ids) }
        }
        guard !replayed.isEmpty else { throw GatewayError(404, "Not Found", "no dead letter \(ids.joined(separator: ", ")) of app \(app)") }
        logger.notice("console replayed dead letters", metadata: ["app": "\(app)", "keyId": "\(keyId)", "ids": "\(replayed.map(\.id))"])
        return ["replayed": replayed.map(\.summary)]
    }

    /// Removes the named dead letters of the app for good; `confirm` must be true.
    func purge(_ authorization: String?, app: String, ids: [String], confirm: Bool) async throws(GatewayError) -> Object {
        let keyId = try gateway.authorizeConsole(authorization, app: app)
        guard confirm else { throw GatewayError(400, "Invalid request", "confirm: a purge deletes for good; send confirm: true", field: "confirm") }
        let purged = try await control { () async throws(ControlError) -> [DeadLetter] in
            try await queue.purge(limit: configuration.deadLetterLimit) { $0.app == app && $0.isNamed(by: ids) }
        }
        guard !purged.isEmpty else { throw GatewayError(404, "Not Found", "no dead letter \(ids.joined(separator: ", ")) of app \(app)") }
        logger.notice("console purged dead letters", metadata: ["app": "\(app)", "keyId": "\(keyId)", "ids": "\(purged.map(\.id))"])
        return ["purged": purged.count, "ids": purged.map(\.id)]
    }

    /// A sample of `integration` for the test-push form: the path to post it to, its body and headers.
    func sample(_ authorization: String?, app: String, integration: String, target: SampleTarget) throws(GatewayError) -> Object {
        _ = try gateway.authorizeConsole(authorization, app: app)
        guard let sample = gateway.sources.sample(named: integration) else {
            throw GatewayError(404, "Not Found", "no sample \(integration); one of \(gateway.sources.samples.map(\.name).joined(separator: ", "))")
        }
        let id = UUID().uuidString.lowercased()
        do {
            let body = try sample.json(for: target, id: id)
            return ["integration": integration, "path": sample.path, "body": String(decoding: body, as: UTF8.self),
                    "headers": Dictionary(sample.headers(id: id).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })]
        } catch {
            throw GatewayError(400, "Invalid request", "send \(integration) needs \(error.option)")
        }
    }

    /// The samples the test-push form offers, each source's: its name, the integration's name
    /// and the target it reads.
    func samples(_ authorization: String?, app: String) throws(GatewayError) -> Object {
        _ = try gateway.authorizeConsole(authorization, app: app)
        let sources = gateway.sources.sources
        return ["samples": sources.map { ["value": $0.sample.name, "label": "\($0.displayName) (POST \($0.sample.path))", "target": $0.sample.target.rawValue] }]
    }

    private var queue: DeadLetterQueue { DeadLetterQueue(url: configuration.amqpURL) }

    private func letters(of app: String) async throws(GatewayError) -> [DeadLetter] {
        try await control { () async throws(ControlError) -> [DeadLetter] in try await queue.list(limit: configuration.deadLetterLimit).filter { $0.app == app } }
    }

    /// Runs a broker command, answering 503 when the broker cannot be reached.
    private func control<T>(_ body: () async throws(ControlError) -> T) async throws(GatewayError) -> T {
        do {
            return try await body()
        } catch {
            switch error.reason {
            case .unreachable: throw GatewayError(503, "Service Unavailable", error.message, retryAfter: 5)
            case .notFound: throw GatewayError(404, "Not Found", error.message)
            default: throw GatewayError(502, "Bad Gateway", error.message)
            }
        }
    }
}
