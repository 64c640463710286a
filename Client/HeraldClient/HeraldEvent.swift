/// What a Herald push tells the app, one case per event of Herald's integrations. A field
/// that is not identifying is optional: the `tooBig` and `hidden` variants leave it out.
public enum HeraldEvent: Sendable, Hashable {
    /// Smart ID style: kinds `auth` and `sign`.
    case authenticationRequest(AuthenticationRequest)
    /// Evernym/Verity style: kind `message`, a message for the sponsee to download.
    case sponsorMessage(SponsorMessage)
    /// Upstra/Amity style: kind `channel.created`.
    case chatChannelCreated(ChatEvent)
    /// Kind `member.joined`.
    case chatMemberJoined(ChatEvent)
    /// Kind `message.created`.
    case chatMessage(ChatEvent)
    /// Sudo email style: kind `email.received`.
    case emailReceived(EmailReceived)
    /// Webcom datasync style: kind `value.changed`.
    case valueChanged(ValueChange)
    /// Kind `children.updated`.
    case childrenUpdated(ChildrenUpdate)
    /// Kind `subscription.revoked`: the app's subscription to `path` ended.
    case subscriptionRevoked(path: String)
    /// Any other kind (an app's own events through `POST /events`): read `data`.
    case other(kind: String)
}

/// A Smart ID authentication or signing request.
public struct AuthenticationRequest: Sendable, Hashable {
    public enum RequestType: String, Sendable, Hashable {
        case authentication = "auth"
        case signing = "sign"
    }

    public var type: RequestType
    /// The request's id, to fetch and answer it.
    public var messageId: String
    /// Who asks (absent when the data was left out).
    public var requestor: String?

    public init(type: RequestType, messageId: String, requestor: String?) {
        self.type = type
        self.messageId = messageId
        self.requestor = requestor
    }
}

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

/// A datasync value changed at `path`.
public struct ValueChange: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        /// The new value as JSON text (nil when the event carried none, e.g. a deletion).
        case value(String?)
        /// The sender hid the data: fetch `path`.
        case hidden
        /// Too big for a push: fetch `path`.
        case tooBig
    }

    public var path: String
    public var content: Content

    public init(path: String, content: Content) {
        self.path = path
        self.content = content
    }
}

/// Children added, changed or removed under a datasync `path`.
public struct ChildrenUpdate: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        /// Each as the JSON text of an object of child key to value (nil when none).
        case children(added: String?, changed: String?, removed: String?)
        /// Too big with the values: the keys of each (empty when none).
        case keys(added: [String], changed: [String], removed: [String])
        /// The sender hid the data: fetch `path`.
        case hidden
        /// Too big even as keys: fetch `path`.
        case tooBig
    }

    public var path: String
    public var content: Content

    public init(path: String, content: Content) {
        self.path = path
        self.content = content
    }
}
