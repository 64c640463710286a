/// The title and body Herald rendered from the event's alert template for the device's locale.
public struct HeraldAlert: Sendable, Hashable {
    public var title: String?
    public var body: String?
    /// `aps.interruption-level` of a plain iOS push (`time-sensitive` for a sign-in request).
    public var interruptionLevel: String?

    public init(title: String?, body: String?, interruptionLevel: String? = nil) {
        self.title = title
        self.body = body
        self.interruptionLevel = interruptionLevel
    }

    /// The alert of an iOS notification's `aps`: `alert` as a string (the body) or
    /// `{title, body}`, and its interruption level; nil without an alert.
    init?(aps: Any?) {
        guard let aps = aps as? [String: Any] else { return nil }
        let level = aps["interruption-level"] as? String
        switch aps["alert"] {
        case let body as String: self.init(title: nil, body: body, interruptionLevel: level)
        case let fields as [String: Any]: self.init(title: fields["title"] as? String, body: fields["body"] as? String, interruptionLevel: level)
        default: return nil
        }
    }
}
