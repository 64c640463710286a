/// The title and body Herald rendered from the event's alert template for the device's locale.
public struct HeraldAlert: Sendable, Hashable {
    public var title: String?
    public var body: String?

    public init(title: String?, body: String?) {
        self.title = title
        self.body = body
    }
}
