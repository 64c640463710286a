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
    /// The Herald app the push is for (Webcom's `event.appId`); nil in a push from before
    /// Herald sent it.
    public var appId: String?

    public init(path: String, content: Content, appId: String? = nil) {
        self.path = path
        self.content = content
        self.appId = appId
    }
}
