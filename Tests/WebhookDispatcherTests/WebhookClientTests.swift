import DispatchKit
import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import HTTPTransport
import ProviderSandbox
import Testing
@testable import Webhook

/// Forwards to a real local HTTP receiver (the sandbox's), over real HTTP: signatures,
/// answers, and the server-side request forgery guard.
@Suite(.serialized) struct WebhookClientTests {
    /// Runs `body` with a sandbox and a transport, stopping both after.
    func withReceiver(_ settings: WebhookSettings = WebhookSettings(), _ body: (TestSandbox, HTTPTransport) async throws -> Void) async throws {
        let sandbox = try await TestSandbox.start()
        let transport = TestSandbox.webhookTransport(settings)
        do {
            try await body(sandbox, transport)
        } catch {
            await transport.close()
            await sandbox.stop()
            throw error
        }
        await transport.close()
        await sandbox.stop()
    }

    @Test(.needs(.python)) func aForwardVerifiesWithTheStandardWebhooksLibrary() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("tenant"), transport: transport)
            let request = TestSandbox.forward()
            #expect(await client.send(request) == .delivered(providerId: nil))
            let receipt = try #require(sandbox.receiver.received(name: "tenant").first)
            #expect(receipt.webhookId == request.deliveryId)
            #expect(receipt.contentType == "application/json")
            let checked = try await StandardWebhooks.verify(receipt, secret: TestSandbox.secret)
            #expect(checked.verified, "\(checked.error ?? "")")
            let payload = try #require(checked.payload)
            #expect(payload["type"] as? String == "upstra.message.created")
            #expect(payload["timestamp"] as? String == "2026-11-23T10:00:00.250Z")
            let data = try #require(payload["data"] as? [String: Any])
            #expect(data["eventId"] as? String == request.eventId)
            #expect(data["app"] as? String == "demo")
            #expect(data["recipient"] as? [String: String] == ["userId": "bob", "deviceId": "device-1", "platform": "fcm", "token": "fcm-token-1"])
            #expect(data["context"] as? [String: String] == ["channelId": "general", "actorId": "ann"])
            #expect(data["data"] as? [String: String] == request.data)
            #expect(data["alert"] as? [String: String] == ["title": "Ann (General)", "body": "See you at ten"])
        }
    }

    @Test(.needs(.python)) func whileRotatingEitherSecretVerifiesAndNoOtherDoes() async throws {
        try await withReceiver { sandbox, transport in
            let new = WebhookSigner.generateSecret()
            let old = TestSandbox.secret
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("rotating"), transport: transport, secrets: [new, old])
            #expect(await client.send(TestSandbox.forward()) == .delivered(providerId: nil))
            let receipt = try #require(sandbox.receiver.received(name: "rotating").first)
            #expect(try await StandardWebhooks.verify(receipt, secret: new).verified)
            #expect(try await StandardWebhooks.verify(receipt, secret: old).verified)
            let other = try await StandardWebhooks.verify(receipt, secret: WebhookSigner.generateSecret())
            #expect(!other.verified && other.error?.contains("No matching signature") == true)
        }
    }

    @Test func theWebhookIdAndBodyStayTheSameAcrossRetries() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("fail-503-1-flaky"), transport: transport)
            let request = TestSandbox.forward()
            guard case .retry(let code, _, _) = await client.send(request) else { Issue.record("the 503 was not retried"); return }
            #expect(code.raw == "HTTP_503")
            var again = request
            again.attempt = 2
            #expect(await client.send(again) == .delivered(providerId: nil))
            let receipts = sandbox.receiver.received(name: "fail-503-1-flaky")
            #expect(receipts.map(\.status) == [503, 204])
            #expect(receipts.map(\.webhookId) == [request.deliveryId, request.deliveryId])
            #expect(receipts[0].body == receipts[1].body)
        }
    }

    @Test func aCallbackEndpointThatKeepsFailingIsHeldThenProbedAndLetThroughOnceItAnswers() async throws {
        var settings = WebhookSettings(connectTimeout: TestSandbox.connectTimeout, timeout: .seconds(60))
        settings.circuit = CircuitBreakerConfiguration(threshold: 3, firstOpen: .milliseconds(300))
        try await withReceiver { sandbox, transport in
            let name = "fail-503-4-recovering"
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL(name), transport: transport, settings: settings, purpose: .callbacks)
            func callback() -> DispatchRequest {
                DispatchRequest.callback(.deviceRevoked, app: "demo", key: UUID().uuidString, data: ["app": "demo"], at: Date())
            }
            for _ in 0..<3 {
                guard case .retry = await client.send(callback()) else { Issue.record("a 503 is retried"); return }
            }
            guard case .held(_, let wait) = await client.send(callback()) else { Issue.record("the fourth callback is not held"); return }
            #expect(wait <= .milliseconds(300))
            #expect(sandbox.receiver.received(name: name).count == 3, "a held callback makes no request")
            // The window ends: one probe (the 4th failure) reopens it for twice as long.
            var probe: SendResult = .held(reason: "", retryAfter: .zero)
            let deadline = ContinuousClock.now + .seconds(10)
            while case .held = probe, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                probe = await client.send(callback())
            }
            guard case .retry = probe else { Issue.record("the probe: \(probe)"); return }
            guard case .held(_, let longer) = await client.send(callback()) else { Issue.record("held again after a failed probe"); return }
            // Twice as long: read from the circuit, since the time left shrinks while two cores are busy.
            #expect(longer <= .milliseconds(600))
            guard case .open(_, let length)? = client.circuit?.current else { Issue.record("the circuit is not open after a failed probe"); return }
            #expect(length == .milliseconds(600))
            // The next probe is answered: the circuit closes and callbacks flow.
            var answered: SendResult = .held(reason: "", retryAfter: .zero)
            while case .held = answered, ContinuousClock.now < deadline + .seconds(10) {
                try await Task.sleep(for: .milliseconds(50))
                answered = await client.send(callback())
            }
            #expect(answered == .delivered(providerId: nil))
            #expect(await client.send(callback()) == .delivered(providerId: nil))
            #expect(sandbox.receiver.received(name: name).map(\.status) == [503, 503, 503, 503, 204, 204])
        }
    }

    @Test func aForwardIsNeverHeld() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("fail-503-down"), transport: transport)
            for _ in 0..<8 {
                guard case .retry = await client.send(TestSandbox.forward()) else { Issue.record("a forward was not tried"); return }
            }
            #expect(sandbox.receiver.received(name: "fail-503-down").count == 8)
        }
    }

    @Test func aRetryIsNeverSoonerThanRetryAfter() async throws {
        try await withReceiver { sandbox, transport in
            for name in ["fail-429-after-7-busy", "fail-503-after-7-down"] {
                let client = try TestSandbox.webhookClient(url: sandbox.webhookURL(name), transport: transport)
                let result = await client.send(TestSandbox.forward())
                guard case .retry(_, _, let retryAfter) = result else { Issue.record("\(name): \(result)"); continue }
                #expect(retryAfter == .seconds(7))
                #expect(RetryPolicy().delay(afterAttempt: 1, retryAfter: retryAfter, random: 0) >= .seconds(7))
            }
        }
    }

    @Test(arguments: [500, 502, 504, 429])
    func serverErrorsAndTooManyRequestsAreRetried(_ status: Int) async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("fail-\(status)-x"), transport: transport)
            guard case .retry(let code, _, _) = await client.send(TestSandbox.forward()) else { Issue.record("\(status) was not retried"); return }
            #expect(code.raw == "HTTP_\(status)")
        }
    }

    @Test(arguments: [400, 401, 403, 404, 413, 422])
    func otherClientErrorsFailForGood(_ status: Int) async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("fail-\(status)-x"), transport: transport)
            #expect(await client.send(TestSandbox.forward()) == .failed(code: HTTPStatusCode(status), reason: "HTTP \(status)"))
        }
    }

    @Test func goneRevokesTheRecipient() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("fail-410-gone"), transport: transport)
            guard case .revoked(let code, let reason, _) = await client.send(TestSandbox.forward()) else { Issue.record("410 did not revoke"); return }
            #expect(code.raw == "HTTP_410")
            #expect(reason.contains("until it registers again"))
        }
    }

    @Test func aCallbackEndpointsGoneFailsTheCallbackAndRevokesNothing() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("fail-410-gone"), transport: transport, purpose: .callbacks)
            let callback = DispatchRequest.callback(.deviceRevoked, app: "demo", key: "k", data: ["app": "demo", "deviceId": "d"], at: Date())
            #expect(await client.send(callback) == .failed(code: HTTPStatusCode(410), reason: "HTTP 410"))
        }
    }

    @Test(.needs(.python)) func aCallbackIsItsTypeTimestampAndDataSignedAsAForward() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("callbacks"), transport: transport, purpose: .callbacks)
            let at = Date(timeIntervalSince1970: 1_795_428_000.25)
            let callback = DispatchRequest.callback(.deviceRevoked, app: "demo", key: "revoke:demo:fcm:del-1", data: ["app": "demo", "userId": "ann"], at: at)
            #expect(await client.send(callback) == .delivered(providerId: nil))
            let receipt = try #require(sandbox.running.sandbox.webhooks.received(name: "callbacks").first)
            #expect(receipt.webhookId == callback.deliveryId)
            let checked = try await StandardWebhooks.verify(receipt, secret: TestSandbox.secret)
            #expect(checked.verified, "\(checked.error ?? "")")
            #expect(checked.payload?["type"] as? String == "device.revoked")
            #expect(checked.payload?["timestamp"] as? String == "2026-11-23T10:00:00.250Z")
            #expect(checked.payload?["data"] as? [String: String] == ["app": "demo", "userId": "ann"])
        }
    }

    @Test func aRedirectIsNotFollowed() async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("redirect-x"), transport: transport)
            let result = await client.send(TestSandbox.forward())
            guard case .failed(let code, let reason) = result else { Issue.record("\(result)"); return }
            #expect(code.raw == DispatchCode.redirect.rawValue)
            #expect(reason.contains("307") && reason.contains("not followed"))
            #expect(sandbox.receiver.count == 1)
        }
    }

    @Test func aTimeoutIsRetried() async throws {
        let settings = WebhookSettings(timeout: .milliseconds(300))
        try await withReceiver(settings) { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("slow-3000-x"), transport: transport, settings: settings)
            guard case .retry(let code, let reason, _) = await client.send(TestSandbox.forward()) else { Issue.record("not retried"); return }
            #expect(code.raw == DispatchCode.transport.rawValue && reason.hasPrefix("timeout"))
        }
    }

    @Test func anEndpointThatRefusesConnectionsIsRetried() async throws {
        try await withReceiver { _, transport in
            let client = try TestSandbox.webhookClient(url: "http://127.0.0.1:\(try freePort())/hook", transport: transport)
            guard case .retry(let code, let reason, _) = await client.send(TestSandbox.forward()) else { Issue.record("not retried"); return }
            #expect(code.raw == DispatchCode.transport.rawValue && reason.hasPrefix("connect"))
        }
    }

    @Test func aNameThatDoesNotResolveIsRetried() async throws {
        try await withReceiver { _, transport in
            let client = try TestSandbox.webhookClient(url: "http://tenant.invalid/hook", transport: transport, resolver: TableResolver(table: [:]))
            guard case .retry(let code, let reason, _) = await client.send(TestSandbox.forward()) else { Issue.record("not retried"); return }
            #expect(code.raw == DispatchCode.transport.rawValue && reason.contains("cannot resolve tenant.invalid"))
        }
    }

    // MARK: The server-side request forgery guard

    @Test(arguments: [
        ("127.0.0.1", "the webhook host 127.0.0.1 is a loopback address, which is refused"),
        ("[::1]", "the webhook host ::1 is a loopback address, which is refused"),
        ("169.254.169.254", "the webhook host 169.254.169.254 is a link-local address, which is refused"),
        ("10.0.0.1", "the webhook host 10.0.0.1 is a private address, which is refused"),
        ("localhost", "the webhook host localhost resolves to"),
    ])
    func theGuardRefusesPrivateAddresses(_ host: String, _ reason: String) async throws {
        try await withReceiver { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("guarded", host: host), transport: transport, allowPrivateNetworks: false)
            let result = await client.send(TestSandbox.forward())
            guard case .failed(let code, let text) = result else { Issue.record("\(host): \(result)"); return }
            #expect(code.raw == DispatchCode.addressRefused.rawValue)
            #expect(text.hasPrefix(reason), "\(text)")
            #expect(text.contains("apps.demo.delivery.allowPrivateNetworks"))
            #expect(sandbox.receiver.count == 0)
        }
    }

    @Test func privateNetworksCanBeAllowed() async throws {
        try await withReceiver { sandbox, transport in
            for host in ["127.0.0.1", "localhost"] {
                let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("allowed", host: host), transport: transport, allowPrivateNetworks: true)
                #expect(await client.send(TestSandbox.forward()) == .delivered(providerId: nil))
            }
            #expect(sandbox.receiver.received(name: "allowed").count == 2)
        }
    }

    @Test func anyRefusedAddressAmongAHostsAddressesRefusesTheHost() async throws {
        try await withReceiver { sandbox, transport in
            let resolver = TableResolver(table: ["tenant.invalid": ["93.184.216.34", "127.0.0.1"]])
            let client = try TestSandbox.webhookClient(
                url: "http://tenant.invalid:\(sandbox.running.httpPort)/webhooks/x", transport: transport, allowPrivateNetworks: false, resolver: resolver)
            let result = await client.send(TestSandbox.forward())
            guard case .failed(let code, let reason) = result else { Issue.record("\(result)"); return }
            #expect(code.raw == DispatchCode.addressRefused.rawValue)
            #expect(reason.contains("tenant.invalid resolves to 127.0.0.1, a loopback address"))
        }
    }

    @Test func theConnectionGoesToTheAddressThatWasChecked() async throws {
        try await withReceiver { sandbox, transport in
            // The name exists only in the resolver the client checked with: curl looking it up
            // again would fail (`.invalid` never resolves).
            let resolver = TableResolver(table: ["tenant.invalid": ["127.0.0.1"]])
            let client = try TestSandbox.webhookClient(
                url: "http://tenant.invalid:\(sandbox.running.httpPort)/webhooks/pinned", transport: transport, resolver: resolver)
            #expect(await client.send(TestSandbox.forward()) == .delivered(providerId: nil))
            #expect(sandbox.receiver.received(name: "pinned").count == 1)
        }
    }

    @Test func multicastAndUnspecifiedAddressesAreRefusedEvenWhenPrivateNetworksAreAllowed() async throws {
        try await withReceiver { sandbox, transport in
            for host in ["0.0.0.0", "224.0.0.1"] {
                let client = try TestSandbox.webhookClient(url: "http://\(host):\(sandbox.running.httpPort)/webhooks/x", transport: transport, allowPrivateNetworks: true)
                let result = await client.send(TestSandbox.forward())
                guard case .failed(let code, let reason) = result else { Issue.record("\(host): \(result)"); continue }
                #expect(code.raw == DispatchCode.addressRefused.rawValue && reason.hasSuffix("never connected to"))
            }
            #expect(sandbox.receiver.count == 0)
        }
    }

    // MARK: Limits

    @Test func aStalledDestinationSendsNewDeliveriesToTheDelayTiersAtOnce() async throws {
        let settings = WebhookSettings(concurrency: 1, stall: .zero)
        try await withReceiver(settings) { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("slow-6000-tenant"), transport: transport, settings: settings)
            let slow = Task { await client.send(TestSandbox.forward()) }
            let deadline = ContinuousClock.now + .seconds(10)
            while transport.requestsInFlight == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let result = await client.send(TestSandbox.forward())
            guard case .retry(let code, _, _) = result else { Issue.record("\(result)"); return }
            #expect(code.raw == DispatchCode.destinationBusy.rawValue)
            #expect(transport.requestsInFlight == 1, "answered while the slow forward was still in flight, not after it")
            #expect(await slow.value == .delivered(providerId: nil))
        }
    }

    @Test func aBurstBeyondAFastDestinationsSlotsWaitsInsteadOfBouncing() async throws {
        let settings = WebhookSettings(concurrency: 2)
        try await withReceiver(settings) { sandbox, transport in
            let client = try TestSandbox.webhookClient(url: sandbox.webhookURL("burst"), transport: transport, settings: settings)
            let results = await withTaskGroup(of: SendResult.self) { group in
                for _ in 0..<100 { group.addTask { await client.send(TestSandbox.forward()) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 == .delivered(providerId: nil) }.count == 100)
            #expect(sandbox.receiver.received(name: "burst").count == 100)
        }
    }

    @Test func aSlowDestinationDoesNotHoldUpAnother() async throws {
        let settings = WebhookSettings(concurrency: 2, stall: .milliseconds(200))
        try await withReceiver(settings) { sandbox, transport in
            let slow = try TestSandbox.webhookClient(url: sandbox.webhookURL("slow-6000-slow"), transport: transport, settings: settings)
            let fast = try TestSandbox.webhookClient(url: "http://localhost:\(sandbox.running.httpPort)/webhooks/fast", transport: transport, settings: settings)
            let held = (0..<4).map { _ in Task { await slow.send(TestSandbox.forward()) } }
            let deadline = ContinuousClock.now + .seconds(10)
            while transport.requestsInFlight < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(await fast.send(TestSandbox.forward()) == .delivered(providerId: nil))
            #expect(transport.requestsInFlight >= 2, "the fast destination was served while the slow one's forwards were still in flight")
            for task in held { #expect(await task.value == .delivered(providerId: nil)) }
        }
    }
}
