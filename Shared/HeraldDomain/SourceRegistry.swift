import HeraldModel
import ServiceKit

/// The upstream integrations a deployment serves: the one list the gateway's routes, the
/// encryption stage's presentation and templates, the default TTLs and the apps file's checks
/// read. Herald's own list is `SourceRegistry.herald` (HeraldSources).
public struct SourceRegistry: Sendable {
    public let sources: [any SourceDescriptor]
    private let bySource: [EventSource: any SourceDescriptor]

    /// `sources` in order; a source named twice, or two routes (of events or of state) at one
    /// path, is a programming error.
    public init(_ sources: [any SourceDescriptor] = []) {
        var bySource: [EventSource: any SourceDescriptor] = [:]
        var paths: Set<String> = []
        for source in sources {
            precondition(bySource[source.source] == nil, "two sources named \(source.source)")
            bySource[source.source] = source
            for path in source.routes.map(\.path) + source.stateRoutes.map(\.path) { precondition(paths.insert(path).inserted, "two routes at \(path)") }
        }
        self.sources = sources
        self.bySource = bySource
    }

    public subscript(source: EventSource) -> (any SourceDescriptor)? { bySource[source] }

    /// Every source's name, in the registry's order.
    public var names: [EventSource] { sources.map(\.source) }

    /// Each source's sample, in the registry's order.
    public var samples: [SourceSample] { sources.map(\.sample) }

    /// The sample `heraldctl send` and the console know by `name`.
    public func sample(named name: String) -> SourceSample? { samples.first { $0.name == name } }

    /// Every route that takes events, in the registry's order.
    public var routes: [SourceRoute] { sources.flatMap(\.routes) }

    /// Every route that keeps a source's state, in the registry's order.
    public var stateRoutes: [SourceStateRoute] { sources.flatMap(\.stateRoutes) }

    /// How a push of `source` and `kind` is presented; a source this deployment does not serve
    /// (an event published straight to the queue) is presented plainly.
    public func presentation(source: EventSource, kind: String) -> PushPresentation {
        self[source]?.presentation(kind: kind) ?? PushPresentation()
    }

    /// Every source's built-in templates, by name.
    public var templates: [String: AppConfiguration.Template] {
        sources.reduce(into: [:]) { all, source in all.merge(source.templates) { first, _ in first } }
    }

    /// Whether `source`'s iOS pushes are decoded in a notification service extension.
    public func iOSDecodesInExtension(_ source: EventSource) -> Bool {
        self[source]?.iOSDecodesInExtension ?? false
    }

    /// The TTL of an event of `source` and `kind` that names none: the app's `defaultTTL`
    /// (its kind, else `*`), then the source's own, else nil (the provider's default).
    public func defaultTTL(source: EventSource, kind: String, app: AppConfiguration?) -> Int? {
        if let ttl = app?.defaultTTL.seconds(source: source, kind: kind) { return ttl }
        guard let own = self[source]?.defaultTTLs else { return nil }
        return own[kind] ?? own["*"]
    }

    /// The sources an ingest URL may be made for: the first segment of each route's path
    /// (`smartid`, `events`, ...).
    public var ingestSources: [String] { routes.map(\.ingestSource) }

    /// The path (below `/v1/apps/{app}`) of the route an ingest URL of `source` takes, nil for none.
    public func ingestPath(source: String) -> String? {
        routes.first { $0.ingestSource == source }?.path
    }

    /// Checks that every app's `defaultTTL` and ingest URLs name sources served here.
    public func validate(_ apps: AppsConfiguration) throws {
        for (id, app) in apps.apps.sorted(by: { $0.key < $1.key }) {
            for (index, url) in app.ingestURLs.enumerated() where ingestPath(source: url.source) == nil {
                throw ConfigurationError(.invalidValue, setting: "apps.\(id).ingestURLs[\(index)].source", "one of \(ingestSources.joined(separator: ", "))")
            }
            for source in app.defaultTTL.seconds.keys.sorted() where EventSource(rawValue: source).flatMap({ self[$0] }) == nil {
                throw ConfigurationError(.invalidValue, setting: "apps.\(id).defaultTTL.\(source)", "is not a source; use one of \(names.map(\.rawValue).joined(separator: ", "))")
            }
        }
    }
}
