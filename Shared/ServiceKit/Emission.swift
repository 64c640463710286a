import Messaging

/// One message a stage emits for an input; the runner publishes them all with confirms
/// before it acknowledges the input.
public struct Emission: Sendable {
    public var message: OutgoingMessage

    public init(_ message: OutgoingMessage) {
        self.message = message
    }
}
