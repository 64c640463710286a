import Foundation
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

/// The sandbox accepts what Google accepts: Google's own auth library (google-auth from
/// PyPI) gets a token from it with each scope FCM accepts, alone or beside others as the
/// Admin SDKs ask, and sends with it; a grant without an FCM scope is refused.
@Suite("A real Google client against the sandbox", .needs(.python))
struct GoogleAuthClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Interop/google_auth_client.py").path

    /// What the Firebase Admin SDKs ask for.
    static let adminSDKScopes = [
        "https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/datastore",
        "https://www.googleapis.com/auth/devstorage.read_write", "https://www.googleapis.com/auth/firebase",
        "https://www.googleapis.com/auth/identitytoolkit", "https://www.googleapis.com/auth/userinfo.email",
    ]

    func run(_ sandbox: TestSandbox, scopes: [String], token: String) async throws -> [String: Any] {
        try await PythonChecker.run(Self.script, [
            "serviceAccountFile": sandbox.serviceAccountFile, "caFile": sandbox.caFile, "endpoint": sandbox.endpoint,
            "scopes": scopes, "deviceToken": token,
        ])
    }

    @Test("each scope FCM accepts gets a token that sends", arguments: [
        ["https://www.googleapis.com/auth/firebase.messaging"],
        ["https://www.googleapis.com/auth/cloud-platform"],
        adminSDKScopes,
    ])
    func acceptedScopes(_ scopes: [String]) async throws {
        let sandbox = try await TestSandbox.start()
        let reply = try await run(sandbox, scopes: scopes, token: "good-google-auth")
        #expect(reply["token"] as? Bool == true, "\(reply)")
        #expect(reply["sendStatus"] as? Int == 200, "\(reply)")
        #expect(sandbox.state.messages(provider: "fcm").map(\.token) == ["good-google-auth"])
        await sandbox.stop()
    }

    @Test("a grant without an FCM scope is refused with invalid_scope")
    func otherScopesAreRefused() async throws {
        let sandbox = try await TestSandbox.start()
        let reply = try await run(sandbox, scopes: ["https://www.googleapis.com/auth/datastore"], token: "good-1")
        #expect(reply["token"] as? Bool == false)
        #expect((reply["error"] as? String)?.contains("invalid_scope") == true, "\(reply)")
        #expect(sandbox.state.messages(provider: "fcm").isEmpty)
        await sandbox.stop()
    }
}
