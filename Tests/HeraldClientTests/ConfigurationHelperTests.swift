import Foundation
import HeraldClient
import HeraldModel
import HeraldTestSupport
import Testing

/// The kit's Sudo configuration helpers against the server's own rules (HeraldModel's
/// `NotificationConfiguration`, which Preferences filters with): the same changes give the
/// same document, and the helpers' answers are what the server decides for that Sudo or
/// address.
struct ConfigurationHelperTests {
    typealias Kit = HeraldClient.NotificationConfiguration
    typealias Server = HeraldModel.NotificationConfiguration

    @Test(arguments: 0..<40)
    func theHelpersChangeAndReadTheDocumentAsTheServerDoes(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 1)
        // Another service's entries are there first, as another SDK wrote them.
        var server = Server(entries: [.init(service: "chat", enabled: false), .init(service: "chat", enabled: true, rule: .init(field: .sudoId, value: "s1"))])
        var kit = try JSONDecoder().decode(Kit.self, from: try HeraldJSON.encode(server))
        let ids = ["s1", "s2", "a1", "a2"]
        for _ in 0..<(1 + random.next(upTo: 8)) {
            let id = ids[random.next(upTo: ids.count)]
            let enabled = random.next(upTo: 2) == 0
            switch random.next(upTo: 3) {
            case 0:
                server.initialize(service: "sudo-email")
                kit.initEmailNotifications()
            case 1:
                server.set(service: "sudo-email", rule: .init(field: .sudoId, value: id), enabled: enabled)
                kit.setNotificationsEnabled(enabled, forSudoWithId: id)
            default:
                server.set(service: "sudo-email", rule: .init(field: .emailAddressId, value: id), enabled: enabled)
                kit.setNotificationsEnabled(enabled, forEmailAddressWithId: id)
            }
        }
        #expect(try JSONDecoder().decode(Server.self, from: try kit.requestBody()) == server, "the same document")
        for id in ids {
            #expect(kit.areNotificationsEnabled(forSudoWithId: id) == server.isEnabled(service: "sudo-email", context: ["sudoId": id]))
            #expect(kit.areNotificationsEnabled(forEmailAddressWithId: id) == server.isEnabled(service: "sudo-email", context: ["emailAddressId": id]))
        }
        #expect(kit.entries.filter { $0.service == "chat" }.count == 2, "other services' entries are kept")
    }

    @Test func initEmailNotificationsKeepsWhatIsThereAndAddsEmailOnce() {
        var kit = Kit(entries: [.init(service: "sudo-email", enabled: false, rule: .init(field: .sudoId, value: "s1"))])
        kit.initEmailNotifications()
        kit.initEmailNotifications()
        #expect(kit.entries.map(\.service) == ["sudo-email", "sudo-email"] && kit.entries[0].rule == nil && kit.entries[0].enabled)
        #expect(!kit.areNotificationsEnabled(forSudoWithId: "s1") && kit.areNotificationsEnabled(forSudoWithId: "s2"))
    }

    @Test func aGatewayAnswerIsReadAsItsConfiguration() throws {
        let reply = Data(#"{"configuration":{"entries":[{"service":"sudo-email","enabled":false,"rule":{"field":"emailAddressId","value":"a1"}}]}}"#.utf8)
        let kit = try Kit(reply: reply)
        #expect(!kit.areNotificationsEnabled(forEmailAddressWithId: "a1") && kit.areNotificationsEnabled(forEmailAddressWithId: "a2"))
    }
}
