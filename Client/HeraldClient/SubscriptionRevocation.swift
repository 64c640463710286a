/// A datasync subscription that ended: the app no longer hears of `path`, and `reason` says
/// why (Webcom's `DatasyncEvent.Revoked` with `error.message`, `.revocation(reason:)` on iOS).
public struct SubscriptionRevocation: Sendable, Hashable {
    /// The path whose subscription ended.
    public var path: String
    /// Why, as the sender gave it (Herald's default when it gave none: "subscription
    /// revoked"); nil in the `hidden` and `tooBig` variants, which carry only identifiers.
    public var reason: String?
    /// The Herald app the push is for (Webcom's `event.appId`).
    public var appId: String?

    public init(path: String, reason: String?, appId: String? = nil) {
        self.path = path
        self.reason = reason
        self.appId = appId
    }
}
