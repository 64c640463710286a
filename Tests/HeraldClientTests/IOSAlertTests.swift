import Foundation
import HeraldClient
import Testing

/// A plain iOS push's alert is in `aps`: the kit reads it (with its interruption level), so a
/// notification service extension sees the sign-in request's or the Evernym message's alert.
struct IOSAlertTests {
    /// A Smart ID AUTH request on APNs as Herald sends it (the encryption stage's plain form).
    nonisolated(unsafe) static let signIn: [AnyHashable: Any] = [
        "aps": ["alert": ["body": "Acme: confirm your sign-in"], "interruption-level": "time-sensitive", "mutable-content": 1],
        "herald": "1", "event": "smartid:7bcc1708", "kind": "auth", "messageId": "7bcc1708", "pushId": "74db355b", "requestor": "Acme", "type": "AUTH",
    ]

    @Test func aPlainPushsAlertIsReadFromAps() throws {
        let opened = try HeraldNotificationDecoder().decode(userInfo: Self.signIn)
        #expect(opened.alert == HeraldAlert(title: nil, body: "Acme: confirm your sign-in", interruptionLevel: "time-sensitive"))
        guard case .authenticationRequest(let request) = opened.event else { Issue.record("\(opened.event)"); return }
        #expect(request.pushId == "74db355b" && request.requestor == "Acme")
    }

    @Test func anAlertGivenAsTextIsItsBody() throws {
        var userInfo = Self.signIn
        userInfo["aps"] = ["alert": "New message"]
        #expect(try HeraldNotificationDecoder().decode(userInfo: userInfo).alert == HeraldAlert(title: nil, body: "New message"))
    }

    @Test func aSilentPushHasNoAlert() throws {
        var userInfo = Self.signIn
        userInfo["aps"] = ["content-available": 1]
        #expect(try HeraldNotificationDecoder().decode(userInfo: userInfo).alert == nil)
    }
}
