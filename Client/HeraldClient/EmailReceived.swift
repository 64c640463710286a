/// An email received by one of the user's addresses (encrypted to the address's key).
public struct EmailReceived: Sendable, Hashable {
    public var emailAddressId: String
    public var sudoId: String
    /// The message's id, to fetch it.
    public var messageId: String
    public var owner: String?
    public var from: String?
    public var subject: String?
    /// When the mail arrived, as sent (RFC 3339).
    public var receivedAt: String?

    public init(emailAddressId: String, sudoId: String, messageId: String, owner: String?, from: String?, subject: String?, receivedAt: String?) {
        self.emailAddressId = emailAddressId
        self.sudoId = sudoId
        self.messageId = messageId
        self.owner = owner
        self.from = from
        self.subject = subject
        self.receivedAt = receivedAt
    }
}
