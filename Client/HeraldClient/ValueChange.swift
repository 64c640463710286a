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
