import DispatchKit
import FCM
import Foundation
import HeraldModel
import Testing

/// Every row of FCM's error table, provoked through the sandbox over HTTPS with HTTP/2.
@Suite("FCM answers, row by row")
struct FCMErrorTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var token: String
        var expected: SendResult
        var testDescription: String { token }
    }

    static let rows: [Row] = [
        Row(token: "unregistered-1", expected: .revoked(code: FCMErrorCode("UNREGISTERED"), reason: "Requested entity was not found.")),
        Row(token: "invalid-1", expected: .revoked(code: FCMErrorCode("INVALID_ARGUMENT"), reason: "The registration token is not a valid FCM registration token")),
        Row(token: "mismatch-1", expected: .revoked(code: FCMErrorCode("SENDER_ID_MISMATCH"), reason: "SenderId mismatch")),
        Row(token: "thirdparty-1", expected: .failed(code: FCMErrorCode("THIRD_PARTY_AUTH_ERROR"), reason: "Auth error from APNS or Web Push Service")),
        Row(token: "quota-1", expected: .retry(code: FCMErrorCode("QUOTA_EXCEEDED"), reason: "Quota exceeded for quota metric 'Send requests' of service 'fcm.googleapis.com'.", retryAfter: .seconds(1))),
        Row(token: "after-7-quota-1", expected: .retry(code: FCMErrorCode("QUOTA_EXCEEDED"), reason: "Quota exceeded for quota metric 'Send requests' of service 'fcm.googleapis.com'.", retryAfter: .seconds(7))),
        Row(token: "unavailable-1", expected: .retry(code: FCMErrorCode("UNAVAILABLE"), reason: "The service is currently unavailable.", retryAfter: .seconds(1))),
        Row(token: "internal-1", expected: .retry(code: FCMErrorCode("INTERNAL"), reason: "Internal error encountered.", retryAfter: nil)),
        Row(token: "unspecified-1", expected: .retry(code: FCMErrorCode("UNSPECIFIED_ERROR"), reason: "Internal error encountered.", retryAfter: nil)),
        Row(token: "ttlexpired-1", expected: .failed(code: FCMErrorCode("INVALID_ARGUMENT"), reason: "The message's time to live is over.")),
    ]

    @Test(arguments: rows)
    func eachAnswerMapsToItsAction(_ row: Row) async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let result = await sandbox.client(transport: transport).send(FCMTestSandbox.request(token: row.token))
        #expect(result == row.expected)
        #expect(sandbox.state.messages(provider: "fcm").isEmpty)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aGoodTokenIsDeliveredWithFCMsMessageName() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let result = await sandbox.client(transport: transport).send(FCMTestSandbox.request(token: "good-1"))
        guard case .delivered(let name?) = result else { Issue.record("\(result)"); return }
        #expect(name.hasPrefix("projects/\(sandbox.account.projectId)/messages/"))
        #expect(sandbox.state.messages(provider: "fcm").map(\.token) == ["good-1"])
        await transport.close()
        await sandbox.stop()
    }

    @Test func aMessageFCMRefusesFailsPermanently() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        var request = FCMTestSandbox.request(token: "good-2")
        request.data["google.reserved"] = "x"
        guard case .failed(let code, _) = await sandbox.client(transport: transport).send(request) else { Issue.record("not failed"); return }
        #expect(code.raw == "INVALID_ARGUMENT")
        await transport.close()
        await sandbox.stop()
    }

    @Test func anotherProjectIsForbiddenPermanently() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        var account = sandbox.account
        account.projectId = "someone-else"
        guard case .failed(let code, _) = await sandbox.client(account: account, transport: transport).send(FCMTestSandbox.request(token: "good-3")) else {
            Issue.record("not failed"); return
        }
        #expect(code.raw == "PERMISSION_DENIED")
        await transport.close()
        await sandbox.stop()
    }

    @Test func anUnreachableFCMIsRetried() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let client = FCMClient(app: "demo", account: sandbox.account, endpoint: "https://127.0.0.1:1", transport: transport)
        _ = try await client.tokens.token()
        guard case .retry(let code, _, _) = await client.send(FCMTestSandbox.request(token: "good-4")) else { Issue.record("not retried"); return }
        #expect(code.raw == "TRANSPORT")
        await transport.close()
        await sandbox.stop()
    }
}
