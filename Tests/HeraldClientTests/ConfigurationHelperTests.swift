import Foundation
import HeraldClient
import Testing

/// The kit's Sudo helpers on a device's configuration: they change and read the document by
/// the rules Preferences filters with (the same type on both sides), touching only email.
struct ConfigurationHelperTests {
    @Test func anAddressSwitchedOffStaysOffWhateverItsSudoSays() {
        var configuration = NotificationConfiguration()
        configuration.initEmailNotifications()
        configuration.setNotificationsEnabled(false, forEmailAddressWithId: "a1")
        configuration.setNotificationsEnabled(true, forSudoWithId: "s1")
        #expect(!configuration.areNotificationsEnabled(forEmailAddressWithId: "a1") && configuration.areNotificationsEnabled(forEmailAddressWithId: "a2"))
        #expect(configuration.areNotificationsEnabled(forSudoWithId: "s1"))
        // What Preferences decides for an email of that address in that Sudo: the address's
        // entry is the more specific, though the Sudo's was set after it.
        #expect(!configuration.isEnabled(service: "sudo-email", context: ["sudoId": "s1", "emailAddressId": "a1"]))
        configuration.setNotificationsEnabled(false, forEmailAddressWithId: "a1")
        #expect(!configuration.isEnabled(service: "sudo-email", context: ["sudoId": "s1", "emailAddressId": "a1"]))
        #expect(configuration.entries.count == 3, "a rule's entry is replaced, not added again")
    }

    @Test func anAddressSwitchedOnStaysOnWhenItsSudoIsSwitchedOffAfterIt() {
        var configuration = NotificationConfiguration()
        configuration.initEmailNotifications()
        configuration.setNotificationsEnabled(true, forEmailAddressWithId: "a1")
        configuration.setNotificationsEnabled(false, forSudoWithId: "s1")
        #expect(configuration.isEnabled(service: "sudo-email", context: ["sudoId": "s1", "emailAddressId": "a1"]))
        #expect(!configuration.isEnabled(service: "sudo-email", context: ["sudoId": "s1", "emailAddressId": "a2"]), "the Sudo's other addresses follow the Sudo")
    }

    @Test func theHelpersKeepOtherServicesEntries() throws {
        var configuration = NotificationConfiguration(entries: [
            .init(service: "chat", enabled: false), .init(service: "chat", enabled: true, rule: .init(field: .sudoId, value: "s1")),
        ])
        configuration.initEmailNotifications()
        configuration.setNotificationsEnabled(false, forSudoWithId: "s1")
        #expect(configuration.entries.filter { $0.service == "chat" }.count == 2)
        #expect(!configuration.isEnabled(service: "chat", context: [:]) && configuration.isEnabled(service: "chat", context: ["sudoId": "s1"]))
        #expect(!configuration.areNotificationsEnabled(forSudoWithId: "s1"))
    }

    @Test func initEmailNotificationsKeepsWhatIsThereAndAddsEmailOnce() {
        var configuration = NotificationConfiguration(entries: [.init(service: "sudo-email", enabled: false, rule: .init(field: .sudoId, value: "s1"))])
        configuration.initEmailNotifications()
        configuration.initEmailNotifications()
        #expect(configuration.entries.map(\.service) == ["sudo-email", "sudo-email"] && configuration.entries[0].rule == nil && configuration.entries[0].enabled)
        #expect(!configuration.areNotificationsEnabled(forSudoWithId: "s1") && configuration.areNotificationsEnabled(forSudoWithId: "s2"))
    }

    @Test func aGatewayAnswerIsReadAndWrittenBackAsTheSameDocument() throws {
        let reply = Data(#"{"configuration":{"entries":[{"enabled":false,"rule":{"field":"emailAddressId","value":"a1"},"service":"sudo-email"}]}}"#.utf8)
        let configuration = try NotificationConfiguration(reply: reply)
        // Email is opt-in: an address without an entry of its own or email's rule-less one is off.
        #expect(!configuration.areNotificationsEnabled(forEmailAddressWithId: "a1") && !configuration.areNotificationsEnabled(forEmailAddressWithId: "a2"))
        #expect(String(decoding: try configuration.requestBody(), as: UTF8.self) == #"{"entries":[{"enabled":false,"rule":{"field":"emailAddressId","value":"a1"},"service":"sudo-email"}]}"#)
    }
}
