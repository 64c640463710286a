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
    /// Kind `subscription.revoked`: the app's subscription to a path ended, and why.
    case subscriptionRevoked(SubscriptionRevocation)
    /// Any other kind (an app's own events through `POST /events`): read `data`.
    case other(kind: String)
}
