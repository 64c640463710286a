// swift-tools-version:6.1
// Herald: a self-hosted push-notification backend built as small services over AMQP.
import Foundation
import PackageDescription

// Herald's products: the multi-call `herald` (every service, by the name it is called as or
// its first argument), heraldctl, the provider sandbox (a tool, never linked into `herald`),
// the app kit and the benchmarks. Each target's folder is named as the target: libraries
// under Shared/ (infrastructure, runtime, domain), Providers/ (a module per provider and the
// registry of them), Services/ (a library per service), Tools/, Client/ and Benchmarks/.
// LayeringTests reads this file: a target depends only on its own layer or those below.
/// Whether the package has a folder at `path` (a module's tests, benchmark or data).
func folderExists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: Context.packageDirectory + "/" + path)
}

/// The providers Herald runs, in the registry's order: a module each, in the folder of its
/// name under Providers/, whose descriptor is `<Module>Provider()`. This is the registry's
/// one list: `scripts/generate` writes Providers/HeraldProviders/HeraldProviders.swift (the
/// registry every service reads) from it, and the deploy files from the manifest that makes.
/// Each provider may use what every provider may (the dispatcher runtime, transport, model,
/// crypto, logging, metrics); one built on another names it in `providerUses` (FCM writes
/// the APNs payload it hands to an iPhone with APNs' `APNsMessage`).
let providerModules = ["FCM", "HMS", "Webhook", "APNs", "Callback", "WebPush"]
let providerUses: [String: [Target.Dependency]] = ["Callback": ["Webhook"], "FCM": ["APNs"]]
let providerTargets: [Target] = providerModules.map { name in
    .target(
        name: name,
        dependencies: providerUses[name, default: []] + [
            "DispatchKit", "HTTPTransport", "HeraldModel", "HeraldCrypto", "ServiceKit", "HeraldDomain",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ],
        path: "Providers/\(name)",
        exclude: folderExists("Providers/\(name)/Emulation") ? ["Emulation"] : []
    )
}
/// A provider's stand-in for herald-sandbox lives in its folder too, `Providers/<Module>/Emulation`:
/// the target `<Module>Emulation`, whose descriptor is `Emulated<Module>()`. The sandbox links
/// them through the generated `HeraldEmulators`; `herald` links none (LayeringTests checks).
let emulatedProviders = providerModules.filter { folderExists("Providers/\($0)/Emulation") }
let emulationTargets: [Target] = emulatedProviders.map { name in
    .target(
        name: "\(name)Emulation",
        dependencies: [
            .target(name: name), "ProviderEmulation", "HeraldModel", "HeraldCrypto", "ServiceKit", "HeraldDomain",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "Metrics", package: "swift-metrics"),
        ],
        path: "Providers/\(name)/Emulation"
    )
}

/// The upstream integrations Herald serves, in the registry's order: a module each, in the
/// folder of its name under EventSources/, whose descriptor is `<Module>Source()`. This is the
/// registry's one list: `scripts/generate` writes EventSources/HeraldSources/HeraldSources.swift
/// from it, and openapi.yaml's source operations from the manifest that makes. A source uses
/// what every source may (the domain layer and the model).
let sourceModules = ["API", "SmartID", "Evernym", "Upstra", "Email", "Webcom", "CloudEvents"]
let sourceTargets: [Target] = sourceModules.map { name in
    .target(
        name: name, dependencies: ["HeraldDomain", "HeraldModel"], path: "EventSources/\(name)",
        exclude: folderExists("EventSources/\(name)/Tests") ? ["Tests"] : []
    )
}
/// A source's tests live in its own folder, `EventSources/<Module>/Tests` (the test target
/// `<Module>SourceTests`; its `Interop` folder is data, read by path), so a source is one folder.
let sourceTestTargets: [Target] = sourceModules.filter { folderExists("EventSources/\($0)/Tests") }.map { name in
    .testTarget(
        name: "\(name)SourceTests",
        dependencies: [.target(name: name), "HeraldDomain", "HeraldModel", "HeraldTestSupport"],
        path: "EventSources/\(name)/Tests",
        exclude: ["Interop"].filter { folderExists("EventSources/\(name)/Tests/\($0)") }
    )
}

/// A provider's tests and benchmark follow from its folders: `Tests/<Module>DispatcherTests` is
/// a test target (its `Fixtures` and `Interop` folders are data, read by path) and
/// `Benchmarks/<Module>Benchmark` the executable `herald-<module>-bench` when the folder
/// exists, each with what any provider's tests or benchmark may use. (SwiftPM
/// reads this file again only when its text changes: a folder added for a provider already in
/// the list appears after the next change here.)
let providerTestTargets: [Target] = providerModules.filter { folderExists("Tests/\($0)DispatcherTests") }.map { name in
    .testTarget(
        name: "\(name)DispatcherTests",
        dependencies: [
            .target(name: name), "DispatchKit", "HTTPTransport", "ProviderSandbox", "ProviderEmulation", "HeraldModel",
            "ServiceKit", "HeraldDomain", "Messaging", "HeraldCrypto", "HeraldTestSupport", "HeraldStackTestSupport", "StageTestSupport",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ] + (emulatedProviders.contains(name) ? [.target(name: "\(name)Emulation")] : []),
        path: "Tests/\(name)DispatcherTests",
        exclude: ["Fixtures", "Interop"].filter { folderExists("Tests/\(name)DispatcherTests/\($0)") }
    )
}
let providerBenchmarks = providerModules.filter { folderExists("Benchmarks/\($0)Benchmark") }
let providerBenchmarkTargets: [Target] = providerBenchmarks.map { name in
    .executableTarget(
        name: "\(name)Benchmark",
        dependencies: [
            .target(name: name), "BenchmarkSupport", "ProviderSandbox", "DispatchKit", "HTTPTransport", "HeraldModel", "ServiceKit",
            "HeraldDomain", "HeraldCrypto",
        ],
        path: "Benchmarks/\(name)Benchmark"
    )
}

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        // The image's one binary: every service (herald-gateway, herald-fcm, …) by the name it is
        // called as or its first argument, and heraldctl.
        .executable(name: "herald", targets: ["HeraldMultiCall"]),
        .executable(name: "heraldctl", targets: ["HeraldCtl"]),
        .executable(name: "herald-sandbox", targets: ["Sandbox"]),
        .executable(name: "herald-messaging-bench", targets: ["MessagingBenchmark"]),
        .executable(name: "herald-json-bench", targets: ["JSONBenchmark"]),
        .executable(name: "herald-encryption-bench", targets: ["EncryptionBenchmark"]),
        .executable(name: "herald-preferences-bench", targets: ["PreferencesBenchmark"]),
        .executable(name: "herald-registration-bench", targets: ["RegistrationBenchmark"]),
    ] + providerBenchmarks.map { .executable(name: "herald-\($0.lowercased())-bench", targets: ["\($0)Benchmark"]) } + [
        .executable(name: "herald-client-token-bench", targets: ["ClientTokenBenchmark"]),
        .library(name: "HeraldModel", targets: ["HeraldModel"]),
        .library(name: "Messaging", targets: ["Messaging"]),
        .library(name: "ServiceKit", targets: ["ServiceKit"]),
        .library(name: "HeraldDomain", targets: ["HeraldDomain"]),
        .library(name: "HeraldProviders", targets: ["HeraldProviders"]),
        .library(name: "HeraldSources", targets: ["HeraldSources"]),
        .library(name: "HeraldCrypto", targets: ["HeraldCrypto"]),
        // What an app links to open Herald's pushes: HeraldCrypto, HeraldDocuments and Foundation only.
        .library(name: "HeraldClient", targets: ["HeraldClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.10.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        // OTLP over HTTP only: the gRPC exporter would add grpc-swift to every build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.0.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(
            name: "CRabbitMQ",
            path: "Shared/CRabbitMQ",
            pkgConfig: "librabbitmq",
            providers: [.apt(["librabbitmq-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Shared/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "HTTPTransport",
            dependencies: [
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Shared/HTTPTransport"
        ),
        .target(
            name: "DispatchKit",
            dependencies: [
                "HeraldModel", "Messaging", "ServiceKit", "HeraldDomain", "HTTPTransport", "HeraldTracing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/DispatchKit"
        ),
        // Each provider's module, and its tests and benchmark where it has them (above).
    ] + providerTargets + emulationTargets + providerTestTargets + providerBenchmarkTargets + sourceTargets + sourceTestTargets + [
        // The providers' emulators (above) and the registry of them, for herald-sandbox.
        .target(
            name: "HeraldEmulators",
            dependencies: emulatedProviders.map { .target(name: "\($0)Emulation") } + ["ProviderEmulation"],
            path: "Providers/HeraldEmulators"
        ),
        // Each source's module (above) and the registry of them.
        .target(
            name: "HeraldSources",
            dependencies: sourceModules.map { .target(name: $0) } + ["HeraldDomain"],
            path: "EventSources/HeraldSources"
        ),
        .target(
            name: "HeraldProviders",
            dependencies: providerModules.map { .target(name: $0) } + ["DispatchKit", "HeraldDomain"],
            path: "Providers/HeraldProviders"
        ),
        .target(
            name: "HeraldModel",
            dependencies: [.product(name: "Crypto", package: "swift-crypto"), "HeraldDocuments", "JSONKit"],
            path: "Shared/HeraldModel"
        ),
        // Herald's JSON: a reader and a writer without the coders' per-value boxing, and any
        // value as a JSONValue. Foundation only, so every module can read and write with it.
        .target(
            name: "JSONKit",
            path: "Shared/JSONKit"
        ),
        .target(
            name: "HeraldCrypto",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            path: "Shared/HeraldCrypto"
        ),
        .target(
            name: "HeraldClient",
            dependencies: ["HeraldCrypto", "HeraldDocuments"],
            path: "Client/HeraldClient"
        ),
        // The documents an app and the server share (a device's notification configuration):
        // Foundation only, so both the app kit and the server's model import it.
        .target(
            name: "HeraldDocuments",
            path: "Shared/HeraldDocuments"
        ),
        .target(
            name: "Encryption",
            dependencies: [
                "HeraldModel", "HeraldCrypto", "ServiceKit", "HeraldDomain", "Messaging",
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Services/Encryption"
        ),
        .target(
            name: "Gateway",
            dependencies: [
                "HeraldModel", "ServiceKit", "HeraldDomain", "Messaging", "HeraldTracing", "HTTPTransport",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Services/Gateway",
            resources: [.copy("openapi.yaml")]
        ),
        .target(
            name: "Console",
            dependencies: [
                "Gateway", "HeraldControl", "ServiceKit", "Messaging",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/Console",
            resources: [.copy("Assets")]
        ),
        .target(
            name: "HeraldStorage",
            dependencies: [
                "ServiceKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/HeraldStorage"
        ),
        .target(
            name: "Registration",
            dependencies: [
                "HeraldModel", "HeraldCrypto", "ServiceKit", "HeraldDomain", "Messaging", "HeraldStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Registration"
        ),
        .target(
            name: "Preferences",
            dependencies: [
                "HeraldModel", "ServiceKit", "HeraldDomain", "Messaging", "HeraldStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/Preferences"
        ),
        .target(
            name: "Messaging",
            dependencies: [
                "CRabbitMQ", "JSONKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Shared/Messaging"
        ),
        // OpenTelemetry tracing: the OTEL_* configuration, the exporter, and the trace context
        // that travels in AMQP headers.
        .target(
            name: "HeraldTracing",
            dependencies: [
                "Messaging",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/HeraldTracing"
        ),
        // The runtime every service runs on: stages, health, metrics, logging, tracing, the
        // broker's publisher. It knows nothing of apps, platforms or events.
        .target(
            name: "ServiceKit",
            dependencies: [
                "Messaging", "JSONKit",
                "HeraldTracing",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Shared/ServiceKit"
        ),
        // Herald's domain on that runtime: the apps file and the provider plug-in API, the
        // broker topology, contracts on the wire, the dead-letter reporter, command servers.
        .target(
            name: "HeraldDomain",
            dependencies: [
                "ServiceKit", "HeraldModel", "Messaging",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Shared/HeraldDomain"
        ),
        .target(
            name: "ProviderEmulation",
            dependencies: [
                "HeraldModel", "HeraldCrypto",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Shared/ProviderEmulation"
        ),
        .target(
            name: "ProviderSandbox",
            dependencies: [
                "ServiceKit", "HeraldModel", "HeraldDomain", "ProviderEmulation", "HeraldEmulators",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/ProviderSandbox"
        ),
        .target(
            name: "HeraldControl",
            dependencies: [
                "HeraldModel", "HeraldProviders", "Messaging", "ServiceKit", "HeraldDomain", "HTTPTransport", "HeraldCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/HeraldControl"
        ),
        .target(
            name: "HeraldCtlCommands",
            dependencies: [
                "HeraldControl", "HeraldProviders", "HeraldSources", "ServiceKit", "HeraldDomain", "HeraldModel", "Messaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/HeraldCtlCommands"
        ),
        .executableTarget(
            name: "HeraldCtl",
            dependencies: ["HeraldCtlCommands"],
            path: "Tools/HeraldCtl"
        ),
        .executableTarget(
            name: "HeraldMultiCall",
            dependencies: ["HeraldServices", "HeraldCtlCommands"],
            path: "Tools/HeraldMultiCall"
        ),
        .executableTarget(
            name: "MessagingBenchmark",
            dependencies: ["Messaging"],
            path: "Benchmarks/MessagingBenchmark"
        ),
        .executableTarget(
            name: "ClientTokenBenchmark",
            dependencies: [
                "HeraldSources",
                "Gateway", "HeraldControl", "HeraldDomain",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/ClientTokenBenchmark"
        ),
        .executableTarget(
            name: "JSONBenchmark",
            dependencies: ["HeraldModel", "JSONKit"],
            path: "Benchmarks/JSONBenchmark"
        ),
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                "HeraldModel", "Messaging", "ServiceKit", "HeraldDomain",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/BenchmarkSupport"
        ),
        .executableTarget(
            name: "RegistrationBenchmark",
            dependencies: [
                "BenchmarkSupport", "Registration", "HeraldModel", "Messaging", "ServiceKit", "HeraldDomain", "HeraldStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/RegistrationBenchmark"
        ),
        .executableTarget(
            name: "PreferencesBenchmark",
            dependencies: ["BenchmarkSupport", "Preferences", "HeraldModel", "ServiceKit", "HeraldDomain"],
            path: "Benchmarks/PreferencesBenchmark"
        ),
        .executableTarget(
            name: "EncryptionBenchmark",
            dependencies: [
                "HeraldSources",
                "HeraldProviders", "BenchmarkSupport", "Encryption", "HeraldCrypto", "HeraldModel", "ServiceKit", "HeraldDomain",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/EncryptionBenchmark"
        ),
        // What tests share, light (like HummingbirdTesting): the test broker, database and
        // certificates and what a test needs of them, fixtures, clocks, keys, the Python
        // checkers and the Java kit. It links no provider, sandbox or service.
        .target(
            name: "HeraldTestSupport",
            dependencies: [
                "Messaging", "HeraldModel", "HeraldStorage", "HeraldClient",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HeraldTestSupport"
        ),
        // What a stage's tests share, light: a stage on the real broker (StageHarness), with no
        // provider, sandbox or service linked, so a stateful service's tests build without them.
        .target(
            name: "StageTestSupport",
            dependencies: [
                "HeraldSources", "HeraldDomain", "HeraldModel", "Messaging", "ServiceKit", "HeraldTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/StageTestSupport"
        ),
        // What tests share, heavy: the provider sandbox in process (TestSandbox), the whole stack
        // as processes (HeraldStack), Web Push subscriptions and webhook verification.
        .target(
            name: "HeraldStackTestSupport",
            dependencies: [
                "HeraldSources",
                "HeraldTestSupport", "Messaging", "HeraldModel", "ServiceKit", "HeraldDomain", "ProviderSandbox", "HeraldProviders", "APNs",
                "APNsEmulation", "HeraldEmulators",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/HeraldStackTestSupport"
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: ["HTTPTransport"],
            path: "Tests/HTTPTransportTests"
        ),
        .testTarget(
            name: "HeraldDomainTests",
            dependencies: [
                "HeraldSources",
                "HeraldDomain", "HeraldProviders", "HeraldModel", "ServiceKit", "Messaging", "HeraldTestSupport", "HeraldStackTestSupport", "StageTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/HeraldDomainTests"
        ),
        .testTarget(
            name: "HeraldStorageTests",
            dependencies: [
                "HeraldStorage", "ServiceKit", "HeraldTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HeraldStorageTests"
        ),
        .testTarget(
            name: "JSONKitTests",
            dependencies: ["JSONKit"],
            path: "Tests/JSONKitTests"
        ),
        .testTarget(
            name: "HeraldModelTests",
            dependencies: ["HeraldModel", "HeraldTestSupport"],
            path: "Tests/HeraldModelTests",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "HeraldCryptoTests",
            dependencies: [
                "HeraldCrypto", "HeraldTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/HeraldCryptoTests",
            exclude: ["Interop"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "HeraldClientTests",
            dependencies: [
                "HeraldSources",
                "HeraldProviders", "HeraldClient", "HeraldCrypto", "Encryption", "FCM", "HMS", "APNs", "HeraldModel", "HeraldTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/HeraldClientTests"
        ),
        .testTarget(
            name: "EncryptionTests",
            dependencies: [
                "HeraldSources",
                "HeraldProviders", "Encryption", "HeraldCrypto", "FCM", "HMS", "APNs", "HeraldModel", "ServiceKit", "HeraldDomain", "Messaging", "HeraldTestSupport", "HeraldStackTestSupport", "StageTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/EncryptionTests",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "HeraldSources",
                "DispatchKit", "Encryption", "HTTPTransport",
                "HeraldProviders", "Gateway", "Registration", "Preferences", "HeraldModel", "HeraldCrypto", "ServiceKit", "HeraldDomain", "Messaging", "HeraldTestSupport", "HeraldStackTestSupport", "StageTestSupport", "HeraldControl",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/GatewayTests",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "RegistrationTests",
            dependencies: [
                "Registration", "HeraldModel", "HeraldCrypto", "ServiceKit", "HeraldDomain", "Messaging", "HeraldTestSupport", "StageTestSupport", "HeraldStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/RegistrationTests"
        ),
        .testTarget(
            name: "PreferencesTests",
            dependencies: [
                "Preferences", "HeraldModel", "ServiceKit", "HeraldDomain", "Messaging", "HeraldTestSupport", "StageTestSupport", "HeraldStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/PreferencesTests"
        ),
        .testTarget(
            name: "DispatchKitTests",
            dependencies: [
                "DispatchKit", "HTTPTransport", "HeraldModel", "ServiceKit", "HeraldDomain", "HeraldTestSupport", "HeraldStackTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/DispatchKitTests"
        ),
        .testTarget(
            name: "HeraldControlTests",
            dependencies: ["HeraldControl", "HeraldModel", "Messaging", "HeraldTestSupport"],
            path: "Tests/HeraldControlTests"
        ),
        .testTarget(
            name: "MessagingTests",
            dependencies: ["Messaging", "HeraldTestSupport"],
            path: "Tests/MessagingTests"
        ),
        .testTarget(
            name: "ServiceKitTests",
            dependencies: [
                "HeraldSources",
                "HeraldProviders", "FCM", "HMS", "ServiceKit", "HeraldDomain", "Messaging", "HeraldModel", "HeraldTestSupport", "HeraldTracing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/ServiceKitTests"
        ),
        .testTarget(
            name: "ProviderSandboxTests",
            dependencies: [
                "HeraldSources",
                "HeraldProviders", "ProviderSandbox", "HeraldTestSupport", "HeraldStackTestSupport", "ServiceKit", "HeraldModel", "Encryption", "FCM", "HMS", "APNs", "HeraldCrypto",
                "FCMEmulation", "HMSEmulation", "APNsEmulation",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/ProviderSandboxTests",
            exclude: ["Interop"]
        ),
        // Herald's executables as processes on the shared test broker, one test at a time (their
        // suites nest in one serialized suite): the executables alone (Executables/), the pipeline
        // end to end (EndToEnd/), under failure (Resilience/), each upstream's documented requests
        // (Upstream/, Fixtures/ naming their source), the API as served (API/) and the operator's
        // tools (Operator/).
        .testTarget(
            name: "StackTests",
            dependencies: [
                "HeraldSources",
                "HeraldProviders", "Messaging", "HeraldModel", "ServiceKit", "HeraldDomain", "HeraldTestSupport", "HeraldStackTestSupport", "ProviderSandbox", "Registration", "HeraldCrypto", "HTTPTransport", "HeraldClient", "Gateway", "HeraldServices",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/StackTests",
            exclude: ["Upstream/Fixtures"]
        ),
        // The executables' table and the manifest: ports, and the deploy files generated from it.
        .testTarget(
            name: "HeraldServicesTests",
            dependencies: ["HeraldServices", "HeraldTestSupport", "ProviderSandbox"],
            path: "Tests/HeraldServicesTests"
        ),
        .executableTarget(
            name: "Sandbox",
            dependencies: [
                "ProviderSandbox", "ServiceKit",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tools/Sandbox"
        ),
        // What each executable runs, in one place (HeraldExecutable).
        .target(
            name: "HeraldServices",
            dependencies: [
                "Gateway", "Console", "Registration", "HeraldStorage", "Preferences", "Encryption", "DispatchKit",
                "HeraldProviders", "HeraldSources", "ServiceKit", "HeraldDomain", "HeraldModel", "Messaging",
            ],
            path: "Services/HeraldServices"
        ),
    ]
)
