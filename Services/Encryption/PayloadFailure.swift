/// Why a delivery cannot become a provider payload. Each becomes an outcome `failed` with
/// the reason, so the sender sees what to fix; nothing else of the event is affected.
public struct PayloadFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The policy is `required` and neither the device nor the address registered a key.
        case keyMissing = "key_missing"
        /// The registered key cannot be used (wrong curve, wrong length, …).
        case invalidKey = "invalid_key"
        /// The alert names a template that neither the app nor Herald defines.
        case unknownTemplate = "unknown_template"
        /// The event's data uses a key that Herald or the provider reserves.
        case reservedDataKey = "reserved_data_key"
        /// Even the smallest variant exceeds the provider's limit.
        case tooBig = "too_big"
        /// A webhook delivery without a recipient to tell the tenant about.
        case notForwardable = "not_forwardable"
        /// The device's platform is not one this deployment's provider registry serves.
        case noProvider = "no_provider"
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
