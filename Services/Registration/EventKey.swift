/// An event as the idempotency table knows it: its app and id.
public struct EventKey: Sendable, Hashable {
    public var app: String
    public var eventId: String

    public init(app: String, eventId: String) {
        self.app = app
        self.eventId = eventId
    }
}
