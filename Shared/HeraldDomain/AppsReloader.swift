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
/// checks it as at start, and hands it to `apply`. A file that does
/// not hold, or that `apply` refuses, is logged with its error and changes nothing: the
/// previous configuration stays. A service that reads the file only at start has no `apply`:
/// it logs that a restart is needed, and a `SIGHUP` no longer ends it.
public struct AppsReloader: Service {
    public typealias Apply = @Sendable (HeraldConfiguration) throws -> Void

    let path: String?
    let providers: ProviderRegistry
    let service: String
    let interval: Duration
    let apply: Apply?
    let logger: Logger

    /// Every service installs one, so `SIGHUP` is handled (its default action ends a process).
    public init(path: String?, providers: ProviderRegistry, service: String, interval: Duration = .seconds(2), logger: Logger, apply: Apply?) {
        self.path = path
        self.providers = providers
        self.service = service
        self.interval = interval
        self.apply = apply
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
                reload(path, because: trigger == .signal ? "SIGHUP" : "the file changed")
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }

    /// Loads, checks and applies the file once.
    func reload(_ path: String, because reason: String) {
        guard let apply else {
            logger.warning("the apps file is read only at start by \(service): restart it to apply the change", metadata: ["reason": "\(reason)"])
            Counter(label: "herald_config_reloads_total", dimensions: [("result", "restart_needed")]).increment()
            return
        }
        do {
            let configuration = try HeraldConfiguration(apps: AppsConfiguration.load(path: path), providers: providers)
            try apply(configuration)
            logger.notice("apps file read again", metadata: [
                "reason": "\(reason)", "apps": "\(configuration.apps.apps.keys.sorted().joined(separator: ","))",
            ])
            Counter(label: "herald_config_reloads_total", dimensions: [("result", "applied")]).increment()
        } catch {
            logger.error("apps file refused; the previous configuration stays", metadata: ["reason": "\(reason)", "error": "\(error)"])
            Counter(label: "herald_config_reloads_total", dimensions: [("result", "refused")]).increment()
        }
    }

    /// The file's bytes (an apps file is small), or nil while it cannot be read (mid-replacement).
    static func fingerprint(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }
}
