/// An Evernym/Verity sponsor message waiting for download.
public struct SponsorMessage: Sendable, Hashable {
    /// The message's id, to download it.
    public var msgId: String
    public var msgType: String?
    public var relationshipDid: String?
    public var senderName: String?

    public init(msgId: String, msgType: String?, relationshipDid: String?, senderName: String?) {
        self.msgId = msgId
        self.msgType = msgType
        self.relationshipDid = relationshipDid
        self.senderName = senderName
    }
}
