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
