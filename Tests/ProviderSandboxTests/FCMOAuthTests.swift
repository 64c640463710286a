import _CryptoExtras
import Foundation
import ProviderSandbox
import Testing

@Suite("FCM OAuth: the JWT bearer grant")
struct FCMOAuthTests {
    @Test("a JWT signed by a known service account gets an expiring bearer token, over HTTP/2 with TLS")
    func validGrant() async throws {
        let client = try await SandboxClient.start()
        let answer = try await client.tokenRequest(assertion: try SandboxClient.assertion(for: client.account))
        #expect(answer.status == 200)
        #expect(answer.httpVersion == "2")
        #expect((answer.json["access_token"] as? String)?.isEmpty == false)
        #expect(answer.json["token_type"] as? String == "Bearer")
        #expect(answer.json["expires_in"] as? Int == 3600)
        await client.stop()
    }

    @Test("a JWT signed with another key is rejected")
    func wrongKey() async throws {
        let client = try await SandboxClient.start()
        let otherKey = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let answer = try await client.tokenRequest(assertion: try SandboxClient.assertion(for: client.account, signingKeyPEM: otherKey))
        #expect(answer.status == 400)
        #expect(answer.json["error"] as? String == "invalid_grant")
        #expect(answer.json["error_description"] as? String == "Invalid JWT Signature.")
        await client.stop()
    }

    @Test("claims are checked: scope, audience, lifetime, expiry and issuer", arguments: claimCases)
    func badClaims(claims: [String: AnySendable], error: String) async throws {
        let client = try await SandboxClient.start()
        let answer = try await client.tokenRequest(assertion: try SandboxClient.assertion(for: client.account, claims: claims.mapValues(\.value)))
        #expect(answer.status == 400)
        #expect(answer.json["error"] as? String == error, "\(answer.text)")
        await client.stop()
    }

    @Test("a malformed request names what is missing")
    func malformedRequests() async throws {
        let client = try await SandboxClient.start()
        let wrongGrant = try await client.tokenRequest(assertion: "x", grantType: "client_credentials")
        #expect(wrongGrant.status == 400 && wrongGrant.json["error"] as? String == "unsupported_grant_type")
        let noAssertion = try await client.request("POST", "/token", body: Data("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(noAssertion.status == 400 && noAssertion.json["error_description"] as? String == "Missing required parameter: assertion")
        let garbage = try await client.tokenRequest(assertion: "not.a.jwt")
        #expect(garbage.status == 400 && garbage.json["error"] as? String == "invalid_grant")
        await client.stop()
    }
}

/// A claim value for parameterized tests.
struct AnySendable: Sendable, CustomStringConvertible {
    let value: any Sendable
    var description: String { "\(value)" }
}

let claimCases: [([String: AnySendable], String)] = {
    let now = Int(Date().timeIntervalSince1970)
    return [
        (["scope": AnySendable(value: "https://www.googleapis.com/auth/datastore https://www.googleapis.com/auth/firebase")], "invalid_scope"),
        (["aud": AnySendable(value: "https://example.com/token")], "invalid_grant"),
        (["exp": AnySendable(value: now + 7200)], "invalid_grant"),
        (["iat": AnySendable(value: now - 7200), "exp": AnySendable(value: now - 3700)], "invalid_grant"),
        (["iss": AnySendable(value: "someone@else.iam.gserviceaccount.com")], "invalid_grant"),
    ]
}()
