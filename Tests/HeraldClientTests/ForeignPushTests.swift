import HeraldClient
import Testing

/// Apps receive pushes from other senders too (their own server, the Firebase console, other
/// SDKs): those are recognised as foreign, never opened as Herald's.
struct ForeignPushTests {
    static let foreign: [[String: String]] = [
        [:],
        ["google.c.a.e": "1", "google.c.a.c_id": "123", "gcm.n.e": "1"],
        ["type": "chat", "event": "message", "kind": "text"],
        ["enc": "aes128gcm", "kid": "k", "payload": "AAAA"],
        ["herald": "", "event": "e", "kind": "k"],
        ["herald": "v1", "event": "e", "kind": "k"],
        ["herald": "1"],
        ["herald": "1", "event": "e"],
        ["herald": "1", "enc": "aes128gcm", "kid": "k"],
    ]

    @Test(arguments: foreign)
    func aPushFromAnotherSourceIsNotHeralds(_ data: [String: String]) {
        #expect(!isHeraldNotification(data))
    }

    @Test func aMapWithoutTheHeraldKeyIsRefusedAsNotHeralds() {
        #expect {
            try HeraldNotificationDecoder().decode(["type": "chat", "event": "message", "kind": "text"])
        } throws: { error in
            (error as? HeraldClientError)?.reason == .notHerald
        }
    }

    @Test func aUserInfoWithoutHeraldsMapIsNotHeralds() {
        let userInfo: [AnyHashable: Any] = ["aps": ["alert": ["title": "Hi"]], "gcm.message_id": "0:1", "count": 3]
        #expect(!isHeraldNotification(userInfo: userInfo))
    }

    @Test func aLaterFormatVersionIsHeraldsButNotReadByThisKit() {
        let data = ["herald": "2", "event": "e", "kind": "k"]
        #expect(isHeraldNotification(data))
        #expect {
            try HeraldNotificationDecoder().decode(data)
        } throws: { error in
            (error as? HeraldClientError)?.reason == .unsupportedVersion
        }
    }
}
