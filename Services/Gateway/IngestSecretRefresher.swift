import HeraldModel
import Logging
import ServiceLifecycle

/// Reads every app's ingest secrets from Registration again every `interval` (2 s by default),
/// so a URL made or revoked through any gateway replica is taken or refused by every other
/// within that time; until the first read succeeds, a secret the apps file does not hold is
/// answered 503. A failed read keeps the last list, and so does one that began before this
/// gateway made or revoked a secret itself (its answer may not hold the change yet).
public struct IngestSecretRefresher: Service {
    let gateway: Gateway
    let interval: Duration
    let logger: Logger

    public init(gateway: Gateway, interval: Duration = .seconds(2), logger: Logger = Logger(label: "herald.gateway.ingest")) {
        self.gateway = gateway
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var failing = false
            while !Task.isCancelled {
                do {
                    let since = gateway.ingest.readBegins()
                    let reply = try await gateway.call(RegistrationCommand.ingestSecrets, to: .registration, RegistrationReply.self)
                    gateway.ingest.replaceStored(reply.ingestSecrets ?? [], since: since)
                    if failing { logger.info("ingest URLs read again") }
                    failing = false
                } catch {
                    if !failing { logger.warning("ingest URLs could not be read; keeping the last list", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
