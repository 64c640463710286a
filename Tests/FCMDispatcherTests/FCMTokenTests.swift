import FCM
import Foundation
import HeraldModel
import HeraldTestSupport
import Synchronization
import Testing
import FCMEmulation

@Suite("FCM access tokens")
struct FCMTokenTests {
    @Test func concurrentFirstSendsShareOneTokenRequest() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let client = sandbox.client(transport: transport)
        let results = await withTaskGroup(of: Bool.self) { group in
            for n in 0..<40 {
                group.addTask {
                    if case .delivered = await client.send(FCMTestSandbox.request(token: "good-\(n)")) { return true }
                    return false
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 40 && results.allSatisfy { $0 })
        #expect(sandbox.state.issuedTokenCount(provider: "fcm") == 1)
        #expect(await client.tokens.fetches == 1)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aRefusedAccessTokenIsRefreshedOnceAndTheSendRepeated() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let client = sandbox.client(transport: transport)
        guard case .delivered = await client.send(FCMTestSandbox.request(token: "good-a")) else { Issue.record("first send"); return }
        #expect(sandbox.state.revokeAccessTokens() == 1)
        guard case .delivered = await client.send(FCMTestSandbox.request(token: "good-b")) else { Issue.record("second send"); return }
        #expect(sandbox.state.issuedTokenCount(provider: "fcm") == 2)
        #expect(sandbox.state.messages(provider: "fcm").map(\.token).sorted() == ["good-a", "good-b"])
        await transport.close()
        await sandbox.stop()
    }

    @Test func aServiceAccountWithTheWrongKeyFailsPermanentlyWithTheTokenEndpointsReason() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        var account = sandbox.account
        account.privateKey = Self.pem
        guard case .failed(let code, let reason) = await sandbox.client(account: account, transport: transport).send(FCMTestSandbox.request(token: "good-c")) else {
            Issue.record("not failed"); return
        }
        #expect(code.raw == "CREDENTIALS" && reason.contains("400"))
        await transport.close()
        await sandbox.stop()
    }

    @Test func theAssertionCarriesTheClaimsGoogleExpects() throws {
        let sandbox = FCMServiceAccount(projectId: "p", privateKeyId: "kid-1", privateKey: Self.pem, clientEmail: "svc@p.iam.gserviceaccount.com", tokenUri: "https://oauth2.googleapis.com/token")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let parts = try FCMOAuth.assertion(for: sandbox, now: now).split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func json(_ part: String) throws -> [String: Any] {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            return try JSONSerialization.jsonObject(with: Data(base64Encoded: base64)!) as! [String: Any]
        }
        let header = try json(parts[0])
        #expect(header["alg"] as? String == "RS256" && header["kid"] as? String == "kid-1" && header["typ"] as? String == "JWT")
        let claims = try json(parts[1])
        #expect(claims["iss"] as? String == "svc@p.iam.gserviceaccount.com")
        #expect(claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims["aud"] as? String == "https://oauth2.googleapis.com/token")
        #expect(claims["iat"] as? Int == 1_800_000_000 && claims["exp"] as? Int == 1_800_003_600)
    }

    /// A key no sandbox account has.
    static let pem = TestKeys.otherRSA2048
}

