import Foundation
import HeraldModel
import Preferences
import Testing

/// The Sudo SDK's operations on a device's notification configuration.
struct SudoOperationsTests {
    typealias S = PreferenceSamples
    typealias Entry = NotificationConfiguration.Entry

    @Test func noConfigurationEnablesEverything() {
        let configuration = NotificationConfiguration()
        #expect(configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1", "emailAddressId": "a1"]))
    }

    @Test func initialisingAddsTheServiceEntryOnce() {
        var configuration = NotificationConfiguration()
        configuration.initialize(service: S.sudo)
        configuration.initialize(service: S.sudo)
        #expect(configuration.entries == [Entry(service: S.sudo, enabled: true)])
    }

    @Test func initialisingKeepsOtherServicesAndEveryRuleAndDoesNotOverrideThem() {
        var configuration = NotificationConfiguration(entries: [
            Entry(service: "calls", enabled: false),
            Entry(service: S.sudo, enabled: false, rule: S.rule(sudo: "s1")),
            Entry(service: S.sudo, enabled: false, rule: S.rule(address: "a9")),
        ])
        let before = configuration.entries
        configuration.initialize(service: S.sudo)
        #expect(configuration.entries == [Entry(service: S.sudo, enabled: true)] + before)
        #expect(!configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1"]), "the Sudo stays disabled")
        #expect(!configuration.isEnabled(service: S.sudo, context: ["sudoId": "s2", "emailAddressId": "a9"]), "the address stays disabled")
        #expect(configuration.isEnabled(service: S.sudo, context: ["sudoId": "s2"]))
        #expect(!configuration.isEnabled(service: "calls", context: [:]))
    }

    @Test func initialisingKeepsAServiceTheUserTurnedOff() {
        var configuration = NotificationConfiguration(entries: [Entry(service: S.sudo, enabled: false)])
        configuration.initialize(service: S.sudo)
        #expect(!configuration.isEnabled(service: S.sudo, context: [:]))
    }

    @Test func disablingOneSudoLeavesTheOthersEnabled() {
        var configuration = NotificationConfiguration()
        configuration.initialize(service: S.sudo)
        configuration.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: false)
        #expect(!configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1", "emailAddressId": "a1"]))
        #expect(configuration.isEnabled(service: S.sudo, context: ["sudoId": "s2", "emailAddressId": "a2"]))
    }

    @Test func disablingOneAddressLeavesItsSudosOtherAddressesEnabled() {
        var configuration = NotificationConfiguration()
        configuration.set(service: S.sudo, rule: S.rule(address: "a1"), enabled: false)
        #expect(!configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1", "emailAddressId": "a1"]))
        #expect(configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1", "emailAddressId": "a2"]))
    }

    @Test func reEnablingReplacesTheEarlierRuleInsteadOfPilingUp() {
        var configuration = NotificationConfiguration()
        configuration.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: false)
        configuration.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: true)
        #expect(configuration.entries == [Entry(service: S.sudo, enabled: true, rule: S.rule(sudo: "s1"))])
        #expect(configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1"]))
    }

    @Test func enablingOneSudoOfADisabledServiceEnablesOnlyThatSudo() {
        var configuration = NotificationConfiguration(entries: [Entry(service: S.sudo, enabled: false)])
        configuration.set(service: S.sudo, rule: S.rule(sudo: "s1"), enabled: true)
        #expect(configuration.isEnabled(service: S.sudo, context: ["sudoId": "s1"]))
        #expect(!configuration.isEnabled(service: S.sudo, context: ["sudoId": "s2"]))
    }

    @Test func theQueriesAnswerPerSudoAndPerAddress() async throws {
        let directory = S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands = PreferenceCommands(store: try await PreferenceStore(directory: directory))
        _ = try await commands.run(.initializeService(app: "a", deviceId: "d1", service: S.sudo))
        _ = try await commands.run(.setRule(app: "a", deviceId: "d1", service: S.sudo, rule: S.rule(sudo: "s1"), enabled: false))
        _ = try await commands.run(.setRule(app: "a", deviceId: "d1", service: S.sudo, rule: S.rule(address: "a7"), enabled: false))
        func enabled(_ rule: NotificationConfiguration.Rule) async throws -> Bool? {
            try await commands.run(.isEnabled(app: "a", deviceId: "d1", service: S.sudo, rule: rule)).enabled
        }
        #expect(try await enabled(S.rule(sudo: "s1")) == false)
        #expect(try await enabled(S.rule(sudo: "s2")) == true)
        #expect(try await enabled(S.rule(address: "a7")) == false)
        #expect(try await enabled(S.rule(address: "a8")) == true)
        #expect(try await commands.run(.isEnabled(app: "a", deviceId: "other", service: S.sudo, rule: S.rule(sudo: "s1"))).enabled == true)
    }
}
