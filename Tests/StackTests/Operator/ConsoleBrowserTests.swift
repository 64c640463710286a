import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import Messaging
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Herald Console in a real browser: Debian's chromium, driven by Selenium (PyPI) through
/// chromium-driver, against the real executables (`Tests/Interop/console_browser.py`).
/// Screenshots go to `HERALD_CONSOLE_SCREENSHOTS` when set (docs/console/ is made that way),
/// else to the sandbox's folder.
extension ServiceProcesses {
    @Suite("The Herald Console in chromium", .needs(.python))
    struct ConsoleBrowserTests {
        static let chromedriver = "/usr/bin/chromedriver"

        /// One request to the console; headers in lower case.
        static func request(_ url: String, key: String?, body: [String: Any]? = nil) async throws -> (status: Int, headers: [String: String], body: String) {
            var request = URLRequest(url: URL(string: url)!)
            request.timeoutInterval = 10
            if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
            if let body {
                request.httpMethod = "POST"
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
            return (http.statusCode, headers, String(decoding: data, as: UTF8.self))
        }

        @Test("an operator signs in, sends a test push and sees it delivered, finds a device by its token, mutes a channel, flips the network switch and replays a dead letter")
        func anOperatorWorksThroughEveryPage() async throws {
            _ = try #require(PythonChecker.python, "no Python with the interop packages: run scripts/test")
            try #require(FileManager.default.isExecutableFile(atPath: Self.chromedriver), "no chromium-driver: scripts/test installs chromium and chromium-driver")
            // Traced, with a trace viewer named: the event page links the event's trace.
            let receiver = try await OTLPReceiver.start()
            defer { receiver.stop() }
            let stack = try await HeraldStack.start(
                dispatchers: 1, hmsDispatchers: 0, environment: receiver.environment.merging(["HERALD_CONSOLE_TRACE_URL": "http://traces.example/trace/{traceId}"]) { $1 })
            do {
                let user = "console-user"
                let token = "console-" + UUID().uuidString.lowercased()
                try await stack.expectOK("PUT", "/devices/console-phone", ["platform": "fcm", "token": token, "os": "android", "userId": user])
                // Dead letters as a stage leaves them: events with their reason and origin; one
                // to replay, one to purge, and one of another app the console must not show.
                let deadId = "console-dead-\(UUID().uuidString.prefix(8).lowercased())"
                let purgedId = "console-purged-\(UUID().uuidString.prefix(8).lowercased())"
                let foreignId = "console-foreign-\(UUID().uuidString.prefix(8).lowercased())"
                let publisher = Publisher(configuration: TestBroker.configuration("console-test", topology: HeraldTopology.all(.herald)))
                for (id, app) in [(deadId, stack.app), (purgedId, stack.app), (foreignId, "someone-else")] {
                    let event = NotificationEvent(id: id, app: app, source: .api, kind: "console.replay", occurredAt: Date(), audience: .users([user]), data: ["a": "b"])
                    try await publisher.publish(try OutgoingMessage(
                        contract: event, exchange: "", routingKey: HeraldTopology.Queue.deadLetters.name,
                        headers: [
                            "x-herald-reason": .string("a test: the stage refused it"), "x-herald-stage": .string("console-test"),
                            "x-herald-exchange": .string(""), "x-herald-routing-key": .string(HeraldTopology.Queue.registrationEvents.name),
                            "x-herald-dead-lettered-at": .string(HeraldJSON.formatTimestamp(Date())),
                        ]))
                }
                await publisher.close()

                let screenshots = ProcessInfo.processInfo.environment["HERALD_CONSOLE_SCREENSHOTS"]
                    ?? stack.sandbox.directory.appendingPathComponent("screenshots").path
                let seen = try await PythonChecker.run(PythonChecker.packageRoot.appendingPathComponent("Tests/Interop/console_browser.py").path, [
                    "console": "http://127.0.0.1:\(stack.gateway.opsPort)", "app": stack.app, "consoleKey": stack.key + "-console",
                    "upstreamKey": stack.key + "-upstream", "user": user, "token": token, "device": "console-phone",
                    "channel": "heraldctl", "deadLetter": deadId, "purgedLetter": purgedId, "screenshots": screenshots, "chromedriver": Self.chromedriver,
                ])
                #expect((seen["wrongKey"] as? String)?.contains("unknown API key") == true, "\(seen)")
                #expect((seen["withoutScope"] as? String)?.contains("lacks the console scope") == true, "\(seen)")
                #expect(seen["keyInLocalStorage"] as? Int == 0, "the key is kept for the browser session only")
                let services = seen["services"] as? [String] ?? []
                #expect(services.contains { $0.hasPrefix("gateway") && $0.contains("ready") } && services.contains { $0.hasPrefix("registration-") }, "\(services)")
                #expect((seen["testPushURL"] as? String)?.contains("/console/events/") == true, "\(seen)")
                #expect(!stack.received(token).isEmpty, "the test push reached the device's provider")
                let traceLink = seen["traceLink"] as? String ?? ""
                #expect(traceLink.hasPrefix("http://traces.example/trace/") && traceLink.count == "http://traces.example/trace/".count + 32, "\(seen)")
                #expect(!receiver.trace(String(traceLink.suffix(32))).isEmpty, "the linked trace is the one the services exported")
                #expect(seen["paged"] as? Bool == true, "the events list pages with its cursor: \(seen)")
                #expect((seen["deviceFound"] as? String)?.contains("console-phone") == true)
                #expect(seen["platforms"] as? [String] == [""] + ProviderRegistry.herald.devicePlatforms.map(\.rawValue),
                        "the platform filter offers the registry's device platforms, as the gateway says at sign-in: \(seen)")
                #expect(seen["deviceToken"] as? String == TokenMask.masked(token), "the device page shows the token masked")
                #expect((seen["chat"] as? String)?.contains("filtered") == true, "\(seen)")
                let channel = try await stack.expectOK("GET", "/users/\(user)/channels/heraldctl/preferences")
                #expect(channel["channelEnabled"] as? Bool == false, "the console muted the channel")
                #expect((seen["networkOff"] as? String)?.contains("off") == true && (seen["networkOn"] as? String)?.contains("on") == true)
                let network = try await stack.expectOK("GET", "/settings/notifications")
                #expect(network["networkEnabled"] as? Bool == true, "switched back on")
                #expect((seen["deadLetter"] as? String)?.contains("a test: the stage refused it") == true, "\(seen)")
                // An ingest URL made, rotated and revoked through the console: its paths work no more.
                let ingestPath = (seen["ingestPath"] as? String ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let rotatedPath = (seen["ingestRotated"] as? String ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(ingestPath.hasPrefix("/v1/ingest/hgi_") && ingestPath.hasSuffix("/evernym/notify") && rotatedPath != ingestPath, "\(seen)")
                #expect((seen["ingestRevoked"] as? String)?.contains("console-verity") == true, "\(seen)")
                for path in [ingestPath, rotatedPath] {
                    let refused = try await Self.request("http://127.0.0.1:\(stack.gateway.port)\(path)", key: nil, body: ["msgId": "m", "sponseeDetails": "FCM:t", "relationshipDid": "d"])
                    #expect(refused.status == 404, "a revoked ingest URL: \(refused.status)")
                }
                #expect((seen["replayDelivered"] as? String)?.contains("delivered") == true, "\(seen)")
                #expect((seen["shown"] as? String)?.contains("console-test") == true, "the letter's headers are shown: \(seen)")
                #expect((seen["purgeAsked"] as? String)?.contains(purgedId) == true && seen["purgedGone"] as? Bool == true, "\(seen)")
                #expect((seen["recent"] as? String)?.contains("delivered") == true, "the device page lists its deliveries: \(seen)")

                // The console's API: its headers, its scope, and one app's letters only.
                let console = "http://127.0.0.1:\(stack.gateway.opsPort)/console"
                let page = try await Self.request("\(console)/", key: nil)
                #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true && page.headers["x-frame-options"] == "DENY", "\(page.headers)")
                #expect(try await Self.request("\(console)/api/apps/\(stack.app)/system", key: nil).status == 401)
                #expect(try await Self.request("\(console)/api/apps/\(stack.app)/system", key: stack.key + "-upstream").status == 403)
                #expect(try await Self.request("\(console)/api/apps/someone-else/dead-letters", key: stack.key + "-console").status == 403)
                let letters = try await Self.request("\(console)/api/apps/\(stack.app)/dead-letters", key: stack.key + "-console")
                #expect(letters.status == 200 && !letters.body.contains(foreignId) && !letters.body.contains(deadId), "\(letters.body)")
                let purge = try await Self.request("\(console)/api/apps/\(stack.app)/dead-letters/purge", key: stack.key + "-console", body: ["ids": [foreignId]])
                #expect(purge.status == 400, "a purge without confirm: true is refused: \(purge.body)")
                let foreign = try await Self.request("\(console)/api/apps/\(stack.app)/dead-letters/purge", key: stack.key + "-console", body: ["ids": [foreignId], "confirm": true])
                #expect(foreign.status == 404, "another app's letter cannot be purged: \(foreign.body)")
                #expect(Int(seen["delivered"] as? String ?? "") ?? 0 >= 2, "the overview counts the deliveries: \(seen)")
                #expect((seen["pageErrors"] as? [String] ?? ["missing"]).isEmpty, "no script error and no CSP violation: \(seen)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
