import FCM
import Foundation
import HeraldModel
import ProviderSandbox
import ServiceKit
import Testing
import FCMEmulation

@Suite("The inbox and fault injection")
struct InboxAndFaultTests {
    @Test("GET /sandbox/messages filters by provider, app, token and time; DELETE clears")
    func inbox() async throws {
        let client = try await SandboxClient.start()
        let fcmToken = try await client.fcmAccessToken()
        let before = Date()
        for device in ["a", "b", "a"] {
            #expect(try await client.sendFCM(["token": device, "data": ["n": device]], token: fcmToken).status == 200)
        }
        #expect(try await client.sendHMS(["token": ["h"], "data": "x"], token: try await client.hmsAccessToken()).status == 200)

        let all = try await client.request("GET", "/sandbox/messages", secure: false)
        #expect(all.status == 200 && all.json["count"] as? Int == 4)
        let byToken = try await client.request("GET", "/sandbox/messages?provider=fcm&token=a")
        let messages = try #require(byToken.json["messages"] as? [[String: Any]])
        #expect(messages.count == 2)
        #expect(((messages.first?["message"] as? [String: Any])?["data"] as? [String: String])?["n"] == "a")
        #expect(try await client.request("GET", "/sandbox/messages?app=herald-demo").json["count"] as? Int == 3)
        #expect(try await client.request("GET", "/sandbox/messages?provider=hms").json["count"] as? Int == 1)
        let since = HeraldJSON.formatTimestamp(before.addingTimeInterval(-60)).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await client.request("GET", "/sandbox/messages?since=\(since)&limit=2").json["count"] as? Int == 2)
        let future = HeraldJSON.formatTimestamp(Date().addingTimeInterval(60)).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await client.request("GET", "/sandbox/messages?since=\(future)").json["count"] as? Int == 0)
        let bad = try await client.request("GET", "/sandbox/messages?since=yesterday")
        #expect(bad.status == 400 && bad.headers["content-type"] == "application/problem+json")

        #expect(try await client.request("DELETE", "/sandbox/messages").status == 204)
        #expect(try await client.request("GET", "/sandbox/messages").json["count"] as? Int == 0)
        await client.stop()
    }

    /// A benchmark counts hundreds of thousands of forwards: one short line each, no bodies.
    @Test("GET /sandbox/receipts?provider=webhook lists each accepted forward as one line with its event id")
    func webhookReceipts() async throws {
        let client = try await SandboxClient.start()
        let forward = client.json(["type": "notification.delivered", "data": ["eventId": "api:run-1", "app": "demo-chat"]])
        #expect(try await client.request("POST", "/webhooks/demo-chat", body: forward, secure: false).status == 204)
        #expect(try await client.request("POST", "/webhooks/fail-500-demo", body: forward, secure: false).status == 500)
        #expect(try await client.request("POST", "/webhooks/demo-chat", body: Data("not json".utf8), secure: false).status == 204)
        #expect(try await client.sendFCM(["token": "a", "data": ["event": "api:fcm-1"]], token: try await client.fcmAccessToken()).status == 200)

        let webhook = try await client.request("GET", "/sandbox/receipts?provider=webhook", secure: false)
        let lines = webhook.text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.map { Array($0.dropFirst()) } == [["webhook", "api:run-1"], ["webhook", "-"]], "accepted forwards only, oldest first")
        #expect(lines.allSatisfy { Int64($0[0]).map { abs(Double($0) / 1000 - Date().timeIntervalSince1970) < 60 } == true })
        let fcm = try await client.request("GET", "/sandbox/receipts?provider=fcm", secure: false)
        #expect(fcm.text.split(separator: "\n").map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["fcm api:fcm-1"])
        let all = try await client.request("GET", "/sandbox/receipts", secure: false)
        #expect(all.text.split(separator: "\n").count == 3, "every provider's and the receiver's")
        await client.stop()
    }

    @Test("the inbox keeps the newest messages up to its capacity")
    func bounded() async throws {
        let client = try await SandboxClient.start(SandboxConfiguration(httpsPort: 0, inboxCapacity: 3))
        let token = try await client.fcmAccessToken()
        for index in 0..<5 { _ = try await client.sendFCM(["token": "t\(index)"], token: token) }
        #expect(client.running.sandbox.state.messages().map(\.token) == ["t2", "t3", "t4"])
        await client.stop()
    }

    @Test("an outage window makes every send answer 503 until it ends")
    func outage() async throws {
        let client = try await SandboxClient.start()
        let fcmToken = try await client.fcmAccessToken()
        let hmsToken = try await client.hmsAccessToken()
        let set = try await client.request("PUT", "/sandbox/faults", body: client.json(["outageSeconds": 60]))
        #expect(set.status == 200 && set.json["outageUntil"] != nil)
        let fcm = try await client.sendFCM(["token": "t"], token: fcmToken)
        #expect(fcm.status == 503 && fcm.headers["retry-after"] == "1")
        let hms = try await client.sendHMS(["token": ["t"]], token: hmsToken)
        #expect(hms.status == 503)
        let past = HeraldJSON.formatTimestamp(Date().addingTimeInterval(-120))
        let ended = HeraldJSON.formatTimestamp(Date().addingTimeInterval(-60))
        #expect(try await client.request("PUT", "/sandbox/faults", body: client.json(["outageFrom": past, "outageUntil": ended])).status == 200)
        #expect(try await client.sendFCM(["token": "t"], token: fcmToken).status == 200)
        await client.stop()
    }

    @Test("a throttle window makes every send answer 429 with its Retry-After until it ends")
    func throttle() async throws {
        let client = try await SandboxClient.start()
        let fcmToken = try await client.fcmAccessToken()
        let hmsToken = try await client.hmsAccessToken()
        let set = try await client.request("PUT", "/sandbox/faults", body: client.json(["throttleSeconds": 60, "retryAfterSeconds": 7]))
        #expect(set.status == 200 && set.json["throttleUntil"] != nil && set.json["retryAfterSeconds"] as? Int == 7, "\(set.text)")
        let fcm = try await client.sendFCM(["token": "t"], token: fcmToken)
        #expect(fcm.status == 429 && fcm.headers["retry-after"] == "7")
        #expect(fcm.text.contains("QUOTA_EXCEEDED"), "\(fcm.text)")
        let hms = try await client.sendHMS(["token": ["t"]], token: hmsToken)
        #expect(hms.status == 429 && hms.headers["retry-after"] == "7")
        #expect(client.running.sandbox.state.messages().isEmpty, "nothing throttled reaches the inbox")
        #expect(try await client.request("DELETE", "/sandbox/faults").status == 204)
        #expect(try await client.sendFCM(["token": "t"], token: fcmToken).status == 200)
        #expect(try await client.sendHMS(["token": ["t"]], token: hmsToken).status == 200)
        await client.stop()
    }

    @Test("an error rate of 1 fails every send, 0 none; added latency delays answers")
    func errorRateAndLatency() async throws {
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        _ = try await client.request("PUT", "/sandbox/faults", body: client.json(["errorRate": 1]))
        #expect(try await client.sendFCM(["token": "t"], token: token).status == 503)
        _ = try await client.request("PUT", "/sandbox/faults", body: client.json(["errorRate": 0, "latencyMs": 150]))
        let started = ContinuousClock.now
        #expect(try await client.sendFCM(["token": "t"], token: token).status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        #expect(try await client.request("GET", "/sandbox/faults").json["latencyMs"] as? Int == 150)
        #expect(try await client.request("DELETE", "/sandbox/faults").status == 204)
        #expect(try await client.request("GET", "/sandbox/faults").json["latencyMs"] as? Int == 0)
        await client.stop()
    }

    @Test("bad fault settings are refused with a problem naming the field")
    func badFaults() async throws {
        let client = try await SandboxClient.start()
        for (body, expected) in [(["errorRate": 2], "errorRate"), (["latencyMs": -1], "latencyMs"), (["outage": 1], "unknown field \"outage\""), (["throttleSeconds": 0], "throttleSeconds"), (["retryAfterSeconds": 0], "retryAfterSeconds")] as [([String: Any], String)] {
            let answer = try await client.request("PUT", "/sandbox/faults", body: client.json(body))
            #expect(answer.status == 400 && (answer.json["detail"] as? String)?.contains(expected) == true, "\(answer.text)")
        }
        await client.stop()
    }

    @Test("a whole number of fault seconds or milliseconds too large for an Int is refused, not trapped")
    func hugeFaultNumbers() async throws {
        let client = try await SandboxClient.start()
        for field in ["latencyMs", "retryAfterSeconds"] {
            let answer = try await client.request("PUT", "/sandbox/faults", body: Data(#"{"\#(field)": 1e300}"#.utf8))
            #expect(answer.status == 400 && (answer.json["detail"] as? String)?.contains(field) == true, "\(answer.text)")
        }
        await client.stop()
    }

    @Test("requests are counted on /metrics by provider, endpoint and outcome")
    func metrics() async throws {
        _ = HeraldMetrics.registry
        let client = try await SandboxClient.start()
        let token = try await client.fcmAccessToken()
        _ = try await client.sendFCM(["token": "unregistered-m"], token: token)
        let text = String(decoding: HeraldMetrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"herald_sandbox_requests_total{provider="fcm",endpoint="send",outcome="unregistered"}"#), "\(text.prefix(2000))")
        #expect(text.contains(#"herald_sandbox_requests_total{provider="fcm",endpoint="token",outcome="issued"}"#))
        await client.stop()
    }

    @Test("the demo credentials and the CA are published for local stacks")
    func credentials() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID())")
        let client = try await SandboxClient.start(SandboxConfiguration(httpsPort: 0, directory: directory))
        let account = try ServiceAccount.load(from: directory.appendingPathComponent("fcm-service-account.json"))
        #expect(account.tokenUri == "https://localhost:\(client.running.httpsPort)/token")
        #expect(try String(contentsOf: directory.appendingPathComponent("ca.pem"), encoding: .utf8).hasPrefix("-----BEGIN CERTIFICATE-----"))
        let answer = try await client.request("GET", "/sandbox/credentials")
        #expect((answer.json["hmsClient"] as? [String: Any])?["clientId"] as? String == client.hmsClient.clientId)
        // The published account works end to end.
        let grant = try await client.tokenRequest(assertion: try SandboxClient.assertion(for: account))
        #expect(grant.status == 200)
        await client.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test("without HTTPS the demo credentials are still written")
    func credentialsWithoutHTTPS() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID())")
        let sandbox = try Sandbox(configuration: SandboxConfiguration(httpsPort: nil, directory: directory))
        let account = try ServiceAccount.load(from: directory.appendingPathComponent("fcm-service-account.json"))
        #expect(account.clientEmail == sandbox.emulator(FCMEmulator.self)?.demoAccount?.clientEmail)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("hms-client-secret").path))
        try? FileManager.default.removeItem(at: directory)
    }
}
