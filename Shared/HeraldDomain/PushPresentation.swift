/// How a push of one source and kind is presented on the devices, beyond its data: the alert
/// an iPhone must show even when the event brings none, how urgently, with what sound, and
/// how Push Kit classifies the alert. Each source declares its own
/// (`SourceDescriptor.presentation(kind:)`).
public struct PushPresentation: Sendable, Hashable {
    /// The template of the alert an iPhone shows for an event that brings none; nil for a
    /// silent push.
    public var iOSAlertTemplate: String?
    /// `aps.interruption-level` of the iOS alert.
    public var interruptionLevel: String?
    /// Whether the push is a chat message: high priority when it shows an alert, and a sound.
    public var isChat: Bool
    /// Push Kit's `android.notification.category` for its alert.
    public var category: String?

    /// A push shown as its data says: no alert of its own, normal priority, no sound, no category.
    public init(iOSAlertTemplate: String? = nil, interruptionLevel: String? = nil, isChat: Bool = false, category: String? = nil) {
        self.iOSAlertTemplate = iOSAlertTemplate
        self.interruptionLevel = interruptionLevel
        self.isChat = isChat
        self.category = category
    }

    /// The sound of an iOS alert: `default` for chat, else none.
    public var sound: String? { isChat ? "default" : nil }
}
