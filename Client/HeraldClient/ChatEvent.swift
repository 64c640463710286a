/// A chat event: a channel created, a member joined, or a message posted.
public struct ChatEvent: Sendable, Hashable {
    public enum MessageType: String, Sendable, Hashable {
        case text, image, custom
    }

    public var channelId: String
    /// Who created the channel, joined it, or posted.
    public var actorId: String
    /// For a message: its type (absent when the data was left out, or for a type this kit
    /// does not know; `data["messageType"]` has the text).
    public var messageType: MessageType?

    public init(channelId: String, actorId: String, messageType: MessageType?) {
        self.channelId = channelId
        self.actorId = actorId
        self.messageType = messageType
    }
}
