import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HMS
import Testing

/// Every Push Kit answer the sandbox can give, provoked over HTTPS with HTTP/2, and what
/// each token of the request gets.
@Suite("Push Kit answers, per token")
struct HMSAnswerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var token: String
        var expected: SendResult
        var testDescription: String { token }
    }

    static let rows: [Row] = [
        Row(token: "unregistered-1", expected: .revoked(code: HMSResultCode("80300007"), reason: "All the tokens are invalid")),
        Row(token: "invalid-1", expected: .revoked(code: HMSResultCode("80300007"), reason: "All the tokens are invalid")),
        Row(token: "unavailable-1-a", expected: .retry(code: HMSResultCode("81000001"), reason: "System internal error: flow control", retryAfter: .seconds(1))),
        Row(token: "after-7-unavailable-1-a", expected: .retry(code: HMSResultCode("81000001"), reason: "System internal error: flow control", retryAfter: .seconds(7))),
        Row(token: "internal-1-a", expected: .retry(code: HMSResultCode("81000001"), reason: "System internal error", retryAfter: nil)),
        Row(token: "authfail-1-a", expected: .retry(code: HMSResultCode("80600003"), reason: "Request OAuth service failed", retryAfter: nil)),
        Row(token: "ttlexpired-1", expected: .expired(code: HMSResultCode("80100004"), reason: "The message expiration time is earlier than the current time")),
    ]

    @Test(arguments: rows)
    func eachAnswerMapsToItsAction(_ row: Row) async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let results = await sandbox.hmsClient(transport: transport).send([TestSandbox.hmsRequest(token: row.token)])
        #expect(results == [row.expected])
        #expect(sandbox.state.messages(provider: "hms").isEmpty)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aGoodTokenIsDeliveredWithPushKitsRequestId() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let results = await sandbox.hmsClient(transport: transport).send([TestSandbox.hmsRequest(token: "good-1")])
        let request = try #require(sandbox.state.sendRequests(provider: "hms").first)
        #expect(results == [.delivered(providerId: request.requestId)])
        #expect(sandbox.state.messages(provider: "hms").map(\.token) == ["good-1"])
        await transport.close()
        await sandbox.stop()
    }

    @Test func aPartialBatchRevokesOnlyTheIllegalTokensAndDeliversTheOthersOnce() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let tokens = ["good-1", "unregistered-2", "good-3", "invalid-4", "good-5"]
        let event = "partial"
        let results = await sandbox.hmsClient(transport: transport).send(tokens.map { TestSandbox.hmsRequest(token: $0, event: event) })
        let requests = sandbox.state.sendRequests(provider: "hms")
        #expect(requests.map(\.tokens) == [tokens], "one multicast request")
        #expect(requests.first?.code == "80100000")
        let delivered = SendResult.delivered(providerId: requests.first?.requestId)
        let illegal = SendResult.revoked(code: HMSResultCode("80100000"), reason: "Push Kit lists the token as illegal")
        #expect(results == [delivered, illegal, delivered, illegal, delivered])
        #expect(sandbox.state.messages(provider: "hms").map(\.token) == ["good-1", "good-3", "good-5"])
        for token in tokens { #expect(sandbox.state.sendAttempts(provider: "hms", token: token) == 1, "\(token) sent once") }
        await transport.close()
        await sandbox.stop()
    }

    @Test func allIllegalRevokesEveryTokenOfTheRequest() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let results = await sandbox.hmsClient(transport: transport).send(["unregistered-a", "invalid-b"].map { TestSandbox.hmsRequest(token: $0, event: "dead") })
        #expect(results == Array(repeating: .revoked(code: HMSResultCode("80300007"), reason: "All the tokens are invalid"), count: 2))
        #expect(sandbox.state.sendRequests(provider: "hms").count == 1)
        await transport.close()
        await sandbox.stop()
    }

    @Test func tooManyTokensSplitsTheRequestUntilPushKitTakesIt() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        // The sandbox refuses any request listing one of these among more than 2 tokens.
        let tokens = (1...5).map { "toomany-2-t\($0)" }
        let results = await sandbox.hmsClient(transport: transport).send(tokens.map { TestSandbox.hmsRequest(token: $0, event: "split") })
        #expect(results.allSatisfy { if case .delivered = $0 { true } else { false } }, "\(results)")
        let requests = sandbox.state.sendRequests(provider: "hms")
        #expect(requests.filter { $0.code == "80300010" }.map(\.tokens.count).sorted() == [3, 5])
        #expect(requests.filter { $0.code == "80000000" }.map(\.tokens.count).sorted() == [1, 2, 2])
        #expect(sandbox.state.messages(provider: "hms").map(\.token).sorted() == tokens, "each token delivered once")
        await transport.close()
        await sandbox.stop()
    }

    @Test func aBodyOverPushKitsLimitFailsPermanently() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        var request = TestSandbox.hmsRequest(token: "good-big")
        request.data["blob"] = String(repeating: "x", count: 5000)
        let results = await sandbox.hmsClient(transport: transport).send([request])
        guard case .failed(let code, _)? = results.first else { Issue.record("\(results)"); return }
        #expect(code.raw == "80300008")
        await transport.close()
        await sandbox.stop()
    }

    @Test func anExpiredAccessTokenIsReplacedAndTheSendGoesThrough() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let client = sandbox.hmsClient(transport: transport)
        _ = try await client.tokens.token()
        #expect(sandbox.state.expireAccessTokens() == 1)
        let results = await client.send([TestSandbox.hmsRequest(token: "good-after-expiry")])
        guard case .delivered? = results.first else { Issue.record("\(results)"); return }
        #expect(await client.tokens.fetches == 2)
        await transport.close()
        await sandbox.stop()
    }

    @Test func anAuthenticationErrorRefreshesOnceAndThenSucceeds() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let client = sandbox.hmsClient(transport: transport)
        _ = try await client.tokens.token()
        #expect(sandbox.state.revokeAccessTokens() == 1)
        let results = await client.send([TestSandbox.hmsRequest(token: "good-after-revocation")])
        guard case .delivered? = results.first else { Issue.record("\(results)"); return }
        #expect(await client.tokens.fetches == 2)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aFreshTokenRefusedAgainFailsPermanentlyWithPushKitsReason() async throws {
        // Tokens that expire a microsecond after they are issued: every send is refused.
        let sandbox = try await TestSandbox.start(tokenLifetime: 0.000_001)
        let transport = sandbox.transport()
        let client = sandbox.hmsClient(transport: transport)
        let results = await client.send([TestSandbox.hmsRequest(token: "good-never")])
        guard case .failed(let code, let reason)? = results.first else { Issue.record("\(results)"); return }
        #expect(code.raw == "UNAUTHENTICATED" && reason.contains("80200003"), "\(reason)")
        #expect(await client.tokens.fetches == 2, "one refresh, no more")
        #expect(sandbox.state.messages(provider: "hms").isEmpty)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aWrongClientSecretFailsWithTheEndpointsReason() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        let results = await sandbox.hmsClient(secret: "wrong", transport: transport).send([TestSandbox.hmsRequest(token: "good-x")])
        guard case .failed(let code, let reason)? = results.first else { Issue.record("\(results)"); return }
        #expect(code.raw == "CREDENTIALS" && reason.contains("invalid client_secret"), "\(reason)")
        await transport.close()
        await sandbox.stop()
    }

    @Test func aSandboxOutageIsRetriedWithItsRetryAfter() async throws {
        let sandbox = try await TestSandbox.start()
        let transport = sandbox.transport()
        sandbox.state.currentFaults = .init(outage: Date().addingTimeInterval(-1)...Date().addingTimeInterval(60))
        let results = await sandbox.hmsClient(transport: transport).send([TestSandbox.hmsRequest(token: "good-down")])
        #expect(results == [.retry(code: HMSResultCode("81000001"), reason: "System internal error: flow control", retryAfter: .seconds(1))])
        await transport.close()
        await sandbox.stop()
    }
}
