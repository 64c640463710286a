import Dispatch
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ServiceKit

#if canImport(Glibc)
import Glibc
#endif

/// Reads the apps file (`HERALD_CONFIG`) again on `SIGHUP` and whenever its content changes
/// (checked every `interval`, so a file edited in place or replaced by a rename is seen),
/// checks it as at start, and applies it. A file that does not hold, or that the service
/// refuses, is logged with its error and changes nothing: the previous configuration stays.
/// The gateway applies a file in place (`Applying.inPlace`); every other service builds its
/// parts from the file at start, so it starts again in place (`Applying.restart`) once the
/// file holds, when what it uses changed (anything but API keys and rate limits) or on
/// `SIGHUP` (a credential file may have changed). A `SIGHUP` never ends a process.
public struct AppsReloader: Service {
    public typealias Apply = @Sendable (HeraldConfiguration) throws -> Void

    /// How a service takes a file that holds.
    public enum Applying: Sendable {
        /// While it runs (the gateway: keys, apps, rate limits).
        case inPlace(Apply)
        /// By starting again in place (`InPlaceRestart`); `running` is the configuration it
        /// started with.
        case restart(InPlaceRestart, running: HeraldConfiguration)
    }

    let path: String?
    let providers: ProviderRegistry
    let sources: SourceRegistry
    let service: String
    let interval: Duration
    let applying: Applying
    let logger: Logger

    /// Every service installs one, so `SIGHUP` is handled (its default action ends a process).
    public init(path: String?, providers: ProviderRegistry, sources: SourceRegistry, service: String, interval: Duration = .seconds(2), logger: Logger, applying: Applying) {
        self.path = path
        self.providers = providers
        self.sources = sources
        self.service = service
        self.interval = interval
        self.applying = applying
        self.logger = logger
    }

    enum Trigger { case signal, tick }

    public func run() async throws {
        let (triggers, continuation) = AsyncStream<Trigger>.makeStream(bufferingPolicy: .bufferingNewest(4))
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { continuation.yield(.signal) }
        source.resume()
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield(.tick)
            }
        }
        defer {
            ticker.cancel()
            source.cancel()
            continuation.finish()
        }
        var fingerprint = path.flatMap(Self.fingerprint)
        await withGracefulShutdownHandler {
            for await trigger in triggers {
                guard let path else {
                    if trigger == .signal { logger.notice("SIGHUP: no apps file to read again (HERALD_CONFIG is unset)") }
                    continue
                }
                let now = Self.fingerprint(path)
                // A tick reloads only a changed file; SIGHUP always (a key file may have changed).
                guard trigger == .signal || (now != nil && now != fingerprint) else { continue }
                fingerprint = now
                reload(path, because: trigger == .signal ? "SIGHUP" : "the file changed", signalled: trigger == .signal)
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }

    /// Loads, checks and applies the file once.
    func reload(_ path: String, because reason: String, signalled: Bool) {
        let configuration: HeraldConfiguration
        do {
            configuration = try HeraldConfiguration(apps: AppsConfiguration.load(path: path), providers: providers, sources: sources)
            if case .inPlace(let apply) = applying { try apply(configuration) }
        } catch {
            logger.error("apps file refused; the previous configuration stays", metadata: ["reason": "\(reason)", "error": "\(error)"])
            Self.count("refused")
            return
        }
        let apps = configuration.apps.apps.keys.sorted().joined(separator: ",")
        switch applying {
        case .inPlace:
            logger.notice("apps file read again", metadata: ["reason": "\(reason)", "apps": "\(apps)"])
            Self.count("applied")
        case .restart(let restart, let running):
            guard signalled || Self.servicePart(of: configuration.apps) != Self.servicePart(of: running.apps) else {
                logger.info("apps file read again: nothing \(service) uses changed (API keys and rate limits are the gateway's)", metadata: ["reason": "\(reason)"])
                Self.count("unchanged")
                return
            }
            logger.notice("apps file read again: \(service) starts again in place to apply it", metadata: ["reason": "\(reason)", "apps": "\(apps)"])
            Self.count("restarting")
            restart.request(because: "the apps file (\(reason))")
        }
    }

    /// What a service other than the gateway uses of the apps: all but keys and rate limits.
    static func servicePart(of apps: AppsConfiguration) -> AppsConfiguration {
        var part = apps
        for id in part.apps.keys {
            part.apps[id]?.apiKeys = []
            part.apps[id]?.rateLimits = AppConfiguration.RateLimits()
        }
        return part
    }

    private static func count(_ result: String) {
        Counter(label: "herald_config_reloads_total", dimensions: [("result", result)]).increment()
    }

    /// The file's bytes (an apps file is small), or nil while it cannot be read (mid-replacement).
    static func fingerprint(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }
}
