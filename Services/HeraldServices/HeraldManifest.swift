import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import JSONKit

/// What a deployment of Herald consists of, derived from `HeraldExecutable.all` and the
/// provider and source registries: each executable with its ports and queues, each provider
/// with its registration rules, each source with its routes of events and of state (their
/// OpenAPI operations).
/// `herald providers --manifest` prints it as JSON; the deploy files (compose.yaml, Prometheus,
/// Helm) and the scripts that start the stack are generated from it, with the sandbox's
/// emulators (`herald-sandbox --manifest`, which `herald` does not link) merged in, so a new
/// provider module appears in all of them.
public enum HeraldManifest {
    /// The manifest as a JSON object (keys sorted when written).
    public static func json(registry: ProviderRegistry = .herald, sources: SourceRegistry = .herald) -> [String: Any] {
        let executables: [[String: Any]] = HeraldExecutable.all.map { executable in
            var entry: [String: Any] = [
                "name": executable.name, "kind": executable.kind.rawValue, "port": executable.defaultPort,
                "summary": executable.summary, "stateful": executable.stateful,
            ]
            if let ops = executable.defaultOpsPort { entry["opsPort"] = ops }
            if let platform = executable.platform {
                entry["platform"] = platform.rawValue
                entry["queue"] = HeraldTopology.Queue.dispatch(platform).name
                entry["retryQueues"] = HeraldTopology.retryTiers.map { HeraldTopology.retryQueue(platform, $0).name }
            }
            return entry
        }
        let providers: [[String: Any]] = registry.providers.map { provider in
            var entry: [String: Any] = [
                "platform": provider.platform.rawValue, "executable": provider.executableName,
                "registersDevices": provider.registersDevices, "deliversEvents": provider.deliversEvents,
            ]
            if let os = provider.deviceOS { entry["deviceOS"] = os.rawValue }
            entry["payloadShape"] = provider.payloadShape.rawValue
            entry["registrationShape"] = provider.registrationShape.rawValue
            entry["resources"] = provider.resources.map { ["name": $0.name, "summary": $0.summary, "fields": $0.fields] as [String: Any] }
            return entry
        }
        let sourceEntries: [[String: Any]] = sources.sources.map { source in
            [
                "source": source.source.rawValue, "displayName": source.displayName, "kitNotes": source.kitNotes,
                "iOSDecodesInExtension": source.iOSDecodesInExtension,
                "defaultTTLs": source.defaultTTLs,
                "sample": sample(source.sample),
                "routes": source.routes.map { route in
                    [
                        "operation": route.operation, "path": route.path, "summary": route.summary, "ingestSummary": route.ingestSummary,
                        "ingestSource": route.ingestSource, "bodySchema": route.bodySchema, "takesIdempotencyKey": route.takesIdempotencyKey,
                        "bodyLimit": route.bodyLimit.map { ["bytes": $0.bytes, "variable": $0.variable] as [String: Any] } as Any? ?? NSNull(),
                    ] as [String: Any]
                },
                "stateRoutes": source.stateRoutes.map { route in
                    [
                        "operation": route.operation, "method": route.method.rawValue, "path": route.openAPIPath, "parameters": route.parameters,
                        "summary": route.summary, "bodySchema": route.bodySchema, "reply": route.reply, "takesClientTokens": route.takesClientTokens,
                    ] as [String: Any]
                },
            ]
        }
        return [
            "executables": executables,
            "providers": providers,
            "sources": sourceEntries,
            "devicePlatforms": registry.devicePlatforms.map(\.rawValue),
            "eventPlatforms": registry.eventPlatforms.map(\.rawValue),
            "subscriptionPlatforms": registry.providers.filter { $0.registersDevices && $0.registrationShape == .subscription }.map(\.platform.rawValue),
        ]
    }

    /// A source's sample with placeholders for what a deployment fills in: `@id@`, `@now@` and
    /// `@<target>@` (`@user@`), so `scripts/generate` can write the demo's curl of it.
    static func sample(_ sample: SourceSample) -> [String: Any] {
        let target = SampleTarget(pushId: "@pushId@", user: "@user@", sponsee: "@sponsee@", address: "@address@")
        let body = (try? sample.json(for: target, id: "@id@", now: Date(timeIntervalSince1970: 0))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return [
            "name": sample.name, "path": sample.path, "target": sample.target.rawValue, "sendsIdempotencyKey": sample.sendsIdempotencyKey,
            "body": body.replacingOccurrences(of: HeraldJSON.formatTimestamp(Date(timeIntervalSince1970: 0)), with: "@now@"),
        ]
    }

    /// The manifest as pretty-printed JSON with sorted keys, ending in a newline.
    public static func text(registry: ProviderRegistry = .herald, sources: SourceRegistry = .herald) throws -> String {
        try JSONValue(any: json(registry: registry, sources: sources)).prettyText + "\n"
    }
}
