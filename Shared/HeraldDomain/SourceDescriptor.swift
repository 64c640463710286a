import Foundation
import HeraldModel

/// What Herald knows of an upstream integration, declared once by its module under
/// EventSources/: the source name its events carry, the routes an upstream posts to and how
/// each body becomes a `NotificationEvent`, how its pushes are presented, its built-in
/// templates and default TTLs, a sample event, the routes that keep its state, and what an
/// app's kit must know to decode its pushes. The list of sources a deployment serves is a `SourceRegistry`.
public protocol SourceDescriptor: Sendable {
    /// The name its events carry (`herald.event.v1`'s `source`, the first part of the routing key).
    var source: EventSource { get }
    /// The integration's name for people (`Smart ID`, `Upstra/Amity`).
    var displayName: String { get }
    /// The routes that take the upstream's events, below `/v1/apps/{app}` (and at an ingest URL).
    var routes: [SourceRoute] { get }
    /// The routes that keep the source's state in Registration (devices under profile ids,
    /// sponsees, address keys), below `/v1/apps/{app}`.
    var stateRoutes: [SourceStateRoute] { get }
    /// How a push of `kind` is presented on the devices (alert an iPhone must show, priority,
    /// sound, Push Kit's category).
    func presentation(kind: String) -> PushPresentation
    /// Templates of its own, by name: an app's template of the same name wins.
    var templates: [String: AppConfiguration.Template] { get }
    /// Seconds an event of a kind (or `*`, every kind) waits at the provider when it names no
    /// TTL and the app configured none; a kind without one keeps the provider's default.
    var defaultTTLs: [String: Int] { get }
    /// Whether the integration's iOS guide decodes every push in a notification service
    /// extension: iOS runs one only for an alert with `mutable-content: 1`, so such a source's
    /// iOS pushes always carry an alert (a placeholder the extension replaces).
    var iOSDecodesInExtension: Bool { get }
    /// What an app's kit must know to decode this source's pushes, in a sentence or two
    /// (docs/client.md and the manifest).
    var kitNotes: String { get }
    /// A sample of its events (`heraldctl send`, the console's test push, the generated-input tests).
    var sample: SourceSample { get }
}

extension SourceDescriptor {
    public var stateRoutes: [SourceStateRoute] { [] }
    public func presentation(kind: String) -> PushPresentation { PushPresentation() }
    public var templates: [String: AppConfiguration.Template] { [:] }
    public var defaultTTLs: [String: Int] { [:] }
    public var iOSDecodesInExtension: Bool { false }
    public var kitNotes: String { "" }
}

/// One route of a source: `POST /v1/apps/{app}<path>` (and `/v1/ingest/{secret}<path>`), its
/// OpenAPI operation, and the adapter that turns a body into an event.
public struct SourceRoute: Sendable {
    /// The OpenAPI `operationId` (`smartIDPush`); `ingest<Operation>` at an ingest URL.
    public var operation: String
    /// Below `/v1/apps/{app}`: `/<source's segment>/...` (`/smartid/push`). Its first segment
    /// names the ingest URLs that take it.
    public var path: String
    /// The OpenAPI summary, and the upstream's name at an ingest URL (`a Smart ID push request`).
    public var summary: String
    public var ingestSummary: String
    /// The request body's schema as OpenAPI YAML, indented for `schema:` under
    /// `components/requestBodies/<operation>/content/application/json`.
    public var bodySchema: String
    /// Whether the upstream sends no id of its own, so the `Idempotency-Key` header names the event.
    public var takesIdempotencyKey: Bool
    /// The largest body when more than the gateway's default: bytes, and the variable that sets it.
    public var bodyLimit: BodyLimit?
    /// Reads the body into an event, or throws the 400 (422) that names the field.
    public var makeEvent: @Sendable (SourceRequest) throws(GatewayError) -> NotificationEvent

    public init(
        operation: String, path: String, summary: String, ingestSummary: String, bodySchema: String,
        takesIdempotencyKey: Bool = false, bodyLimit: BodyLimit? = nil,
        makeEvent: @escaping @Sendable (SourceRequest) throws(GatewayError) -> NotificationEvent
    ) {
        self.operation = operation
        self.path = path
        self.summary = summary
        self.ingestSummary = ingestSummary
        self.bodySchema = bodySchema
        self.takesIdempotencyKey = takesIdempotencyKey
        self.bodyLimit = bodyLimit
        self.makeEvent = makeEvent
    }

    /// A body limit above the gateway's default: `bytes` unless `variable` (64 KiB to 64 MiB) says otherwise.
    public struct BodyLimit: Sendable, Hashable {
        public var bytes: Int
        public var variable: String
        public init(bytes: Int, variable: String) {
            self.bytes = bytes
            self.variable = variable
        }
    }

    /// The first segment of `path`: the source name an ingest URL is made for.
    public var ingestSource: String { String(path.dropFirst().prefix { $0 != "/" }) }
}

/// What a source's adapter gets of one request: the body, the app, the headers it may read
/// and what Herald knows that the body does not.
public struct SourceRequest: Sendable {
    public var body: JSONFields
    /// The body as it came (the canonical event is decoded from it).
    public var raw: Data
    public var app: String
    /// The app's configuration, nil for an app the file does not know.
    public var appConfiguration: AppConfiguration?
    /// The `Idempotency-Key` header.
    public var idempotencyKey: String?
    public var now: Date
    /// A com method an upstream names (`FCM:<token>`) as a token Herald can push to, for the app.
    public var comMethod: @Sendable (String) -> DirectToken?
    /// The sources this deployment serves (the canonical event names one).
    public var sources: [EventSource]

    public init(
        body: JSONFields, raw: Data, app: String, appConfiguration: AppConfiguration?, idempotencyKey: String?, now: Date,
        comMethod: @escaping @Sendable (String) -> DirectToken? = { _ in nil }, sources: [EventSource] = []
    ) {
        self.body = body
        self.raw = raw
        self.app = app
        self.appConfiguration = appConfiguration
        self.idempotencyKey = idempotencyKey
        self.now = now
        self.comMethod = comMethod
        self.sources = sources
    }
}
