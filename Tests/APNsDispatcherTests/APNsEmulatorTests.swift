import APNs
import Foundation
import HeraldTestSupport
import HeraldStackTestSupport
import ProviderSandbox
import Testing
import APNsEmulation

/// The sandbox's APNs checks every header as Apple documents it, so a dispatcher that
/// passes against it sends what Apple takes.
struct APNsEmulatorTests {
    /// One request straight to the sandbox's handler, with a valid provider token.
    func answer(_ sandbox: TestSandbox, headers: [String: String], body: Data = Data(#"{"aps":{"alert":"Hello"}}"#.utf8), token: String? = nil, bearer: Bool = true) throws -> (status: Int, reason: String?) {
        let key = try APNsSigningKey.load(path: sandbox.apnsKeyFile, teamId: sandbox.apnsKey.teamId, keyId: sandbox.apnsKey.keyId, setting: "keyFile")
        var all = ["apns-topic": sandbox.apnsTopic, "apns-push-type": "alert", "apns-priority": "10"].merging(headers) { $1 }
        if bearer { all["authorization"] = "bearer \(try key.token(issuedAt: Date()))" }
        all = all.filter { !$0.value.isEmpty }
        let reply = sandbox.running.sandbox.handle(SandboxRequest(method: "POST", target: "/3/device/\(token ?? TestSandbox.apnsToken())", headers: all, body: body))
        let reason = (try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["reason"] as? String
        return (reply.status, reason)
    }

    @Test func eachHeaderIsCheckedAsAppleDoes() async throws {
        let sandbox = try await TestSandbox.start()
        let cases: [([String: String], Int, String)] = [
            (["apns-topic": ""], 400, "MissingTopic"),
            (["apns-push-type": "loud"], 400, "InvalidPushType"),
            (["apns-priority": "7"], 400, "BadPriority"),
            (["apns-push-type": "background", "apns-priority": "10"], 400, "BadPriority"),
            (["apns-expiration": "soon"], 400, "BadExpirationDate"),
            (["apns-collapse-id": String(repeating: "c", count: 65)], 400, "BadCollapseId"),
            (["apns-id": "not-a-uuid"], 400, "BadMessageId"),
        ]
        for (headers, status, reason) in cases {
            let answer = try answer(sandbox, headers: headers)
            #expect(answer.status == status && answer.reason == reason, "\(headers): \(answer)")
        }
        #expect(try answer(sandbox, headers: ["apns-push-type": "background", "apns-priority": "5"]).status == 200)
        await sandbox.stop()
    }

    @Test func theBodyAndTheTokenAreCheckedAsAppleDoes() async throws {
        let sandbox = try await TestSandbox.start()
        #expect(try answer(sandbox, headers: [:], body: Data()).reason == "PayloadEmpty")
        let big = Data((#"{"aps":{},"x":""# + String(repeating: "x", count: 4096) + #""}"#).utf8)
        #expect(try answer(sandbox, headers: [:], body: big) == (413, "PayloadTooLarge"))
        #expect(try answer(sandbox, headers: [:], token: "abc") == (400, "BadDeviceToken"))
        #expect(try answer(sandbox, headers: [:], token: String(repeating: "ab", count: 101)) == (400, "BadDeviceToken"))
        #expect(try answer(sandbox, headers: [:], bearer: false) == (403, "MissingProviderToken"))
        #expect(sandbox.state.messages(provider: "apns").isEmpty)
        await sandbox.stop()
    }
}
