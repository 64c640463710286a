import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// Every contract's encoding is pinned by a fixture in `Fixtures/`, so a contract change
/// shows in review. Regenerate deliberately with `HERALD_RECORD_FIXTURES=1 swift test --filter GoldenFixtureTests`.
@Suite("Golden fixtures of the wire contracts")
struct GoldenFixtureTests {
    func check<T: Codable & Equatable>(_ value: T, fixture name: String) throws {
        let encoded = try HeraldJSON.encoder(pretty: true).encode(value) + Data("\n".utf8)
        let fixture = try #require(try GoldenFixture.expected(encoded, name: name, bundle: .module), "missing fixture \(name)")
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: fixture, as: UTF8.self), "\(name) no longer matches its encoding")
        #expect(try HeraldJSON.decode(T.self, from: fixture) == value, "\(name) no longer decodes to the sample")
    }

    @Test func event() throws { try check(ContractSamples.event, fixture: "event.v1.json") }
    @Test func delivery() throws { try check(ContractSamples.delivery, fixture: "delivery.v1.json") }
    @Test func emailDelivery() throws { try check(ContractSamples.emailDelivery, fixture: "delivery.v1.email.json") }
    @Test func dispatch() throws { try check(ContractSamples.dispatch, fixture: "dispatch.v1.json") }
    @Test func webhookDelivery() throws { try check(ContractSamples.webhookDelivery, fixture: "delivery.v1.webhook.json") }
    @Test func webhookDispatch() throws { try check(ContractSamples.webhookDispatch, fixture: "dispatch.v1.webhook.json") }
    @Test func outcome() throws { try check(ContractSamples.outcome, fixture: "outcome.v1.json") }
    @Test func tokenRevoked() throws { try check(ContractSamples.tokenRevoked, fixture: "token-revoked.v1.json") }
    @Test func commandError() throws { try check(ContractSamples.commandError, fixture: "error.v1.json") }
    @Test func preferenceCommand() throws { try check(ContractSamples.preferenceCommand, fixture: "preference-command.v1.json") }
    @Test func registrationCommand() throws { try check(ContractSamples.registrationCommand, fixture: "registration-command.v1.json") }
    @Test func registrationReply() throws { try check(ContractSamples.registrationReply, fixture: "registration-reply.v1.json") }
    @Test func sourceStateCommand() throws { try check(ContractSamples.sourceStateCommand, fixture: "registration-command.v1.source-state.json") }
    @Test func eventStatusCommand() throws { try check(ContractSamples.eventStatusCommand, fixture: "registration-command.v1.event-status.json") }
    @Test func eventStatusReply() throws { try check(ContractSamples.eventStatusReply, fixture: "registration-reply.v1.event-status.json") }
    @Test func preferenceReply() throws { try check(ContractSamples.preferenceReply, fixture: "preference-reply.v1.json") }
}
