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
    /// The Herald app the push is for (Webcom's `event.appId`); nil in a push from before
    /// Herald sent it.
    public var appId: String?

    public init(path: String, content: Content, appId: String? = nil) {
        self.path = path
        self.content = content
        self.appId = appId
    }
}
