import Foundation
import Logging
import Synchronization

/// Sets up swift-log once per process: JSON lines (or plain text for humans) at the level
/// of `HERALD_LOG_LEVEL`, with sensitive metadata redacted.
public enum HeraldLogging {
    private static let bootstrapped = Mutex(false)

    /// Bootstraps the logging system (only the first call in a process takes effect) and
    /// returns the service's logger.
    @discardableResult
    public static func bootstrap(service: String, level: Logger.Level, format: ServiceEnvironment.LogFormat) -> Logger {
        let first = bootstrapped.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first {
            LoggingSystem.bootstrap { label in
                switch format {
                case .json:
                    return JSONLogHandler(label: label, service: service, level: level)
                case .text:
                    var handler = StreamLogHandler.standardError(label: label)
                    handler.logLevel = level
                    return RedactingLogHandler(wrapping: handler)
                }
            }
        }
        var logger = Logger(label: service)
        logger.logLevel = level
        return logger
    }
}

/// Redacts sensitive metadata before handing the event to another handler.
public struct RedactingLogHandler<Wrapped: LogHandler>: LogHandler {
    private var wrapped: Wrapped

    public init(wrapping wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.metadata = event.metadata.map { metadata in
            Dictionary(uniqueKeysWithValues: metadata.map { ($0.key, Redaction.isSensitive($0.key) ? .string("[redacted]") : $0.value) })
        }
        wrapped.log(event: event)
    }
}
