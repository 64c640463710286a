import HeraldModel

/// How a push of one source and kind is presented on the devices, beyond its data: the alert
/// an iPhone must show even when the event brings none, how urgently, with what sound, and
/// how Push Kit classifies the alert.
///
/// - A Smart ID sign-in or signing request (`smartid` `auth`/`sign`) must reach a person: on
///   iOS it is an alert (`smartid.auth`/`smartid.sign`, time-sensitive, `mutable-content`),
///   never a background push, which Apple throttles and never delivers to a force-quit app.
/// - An Evernym message (`evernym` `message`) goes to an `FCM:` com method that names no
///   system: Android's handler gets the data alone, an iPhone the `evernym.message` alert.
/// - A chat push (Upstra, or a Webcom event with an alert) is a user-visible message: high
///   priority on Android, the default sound on iOS, and Push Kit's `IM` category.
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

    public init(source: EventSource, kind: String) {
        switch (source, kind) {
        case (.smartID, "auth"), (.smartID, "sign"):
            self.init(iOSAlertTemplate: "smartid.\(kind)", interruptionLevel: "time-sensitive", isChat: false, category: "ACCOUNT")
        case (.smartID, _):
            self.init(iOSAlertTemplate: nil, interruptionLevel: nil, isChat: false, category: "ACCOUNT")
        case (.evernym, "message"):
            self.init(iOSAlertTemplate: "evernym.message", interruptionLevel: nil, isChat: false, category: nil)
        case (.upstra, _), (.webcom, _):
            self.init(iOSAlertTemplate: nil, interruptionLevel: nil, isChat: true, category: "IM")
        default:
            self.init(iOSAlertTemplate: nil, interruptionLevel: nil, isChat: false, category: nil)
        }
    }

    init(iOSAlertTemplate: String?, interruptionLevel: String?, isChat: Bool, category: String?) {
        self.iOSAlertTemplate = iOSAlertTemplate
        self.interruptionLevel = interruptionLevel
        self.isChat = isChat
        self.category = category
    }

    /// The sound of an iOS alert: `default` for chat, else none.
    public var sound: String? { isChat ? "default" : nil }
}
