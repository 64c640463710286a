import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import HTTPTransport
import Logging
import ServiceKit
import Testing

/// What every provider adapter gets from the shared layer, against a fake provider over
/// real HTTP.
@Suite("The provider layer")
struct ProviderLayerTests {
    func withProvider(secret: String = "good", _ body: (FakeProvider, FakeProviderClient) async throws -> Void) async throws {
        let provider = try await FakeProvider.start()
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "fake"))
        let client = FakeProviderClient(url: provider.url, secret: secret, transport: transport)
        try await body(provider, client)
        await transport.close()
        await provider.stop()
    }

    @Test("a batch is one request, and every delivery in it gets its own result")
    func perDeliveryResults() async throws {
        try await withProvider { provider, client in
            let results = await client.send([request("ok-1"), request("dead-2"), request("ok-3")])
            #expect(results.count == 3)
            #expect(results[0] == .delivered(providerId: nil))
            #expect(results[1] == .revoked(code: FakeCode("DEAD"), reason: "the provider does not know this token"))
            #expect(results[2] == .delivered(providerId: nil))
            #expect(provider.state.withLock { $0.sendRequests } == 1)
        }
    }

    @Test("a refused access token is refreshed once and the send repeated")
    func refreshOnce() async throws {
        try await withProvider { provider, client in
            #expect(await client.send([request("ok-1")]) == [.delivered(providerId: nil)])
            provider.revokeAccessTokens()
            #expect(await client.send([request("ok-2")]) == [.delivered(providerId: nil)])
            #expect(provider.state.withLock { ($0.tokenRequests, $0.sendRequests) } == (2, 3))
        }
    }

    @Test("a provider that refuses a fresh token too fails the send with UNAUTHENTICATED after one refresh")
    func refusedTwice() async throws {
        try await withProvider { provider, client in
            provider.state.withLock { $0.refuseAll = true }
            let results = await client.send([request("ok-1")])
            guard case .failed(let code, let reason) = results[0] else { Issue.record("\(results)"); return }
            #expect(code.raw == "UNAUTHENTICATED" && reason.contains("refused"))
            #expect(provider.state.withLock { ($0.tokenRequests, $0.sendRequests) } == (2, 2))
        }
    }

    @Test("429 and 5xx are retried no sooner than Retry-After")
    func retryAfter() async throws {
        try await withProvider { _, client in
            let results = await client.send([request("busy-1"), request("ok-2")])
            #expect(results == [SendResult](repeating: .retry(code: HTTPStatusCode(429), reason: "HTTP 429", retryAfter: .seconds(7)), count: 2))
        }
    }

    @Test("credentials the token endpoint refuses fail permanently with its reason, and are not asked for again at once")
    func badCredentials() async throws {
        try await withProvider(secret: "wrong") { provider, client in
            for token in ["ok-1", "ok-2", "ok-3"] {
                let results = await client.send([request(token)])
                guard case .failed(let code, let reason) = results[0] else { Issue.record("\(results)"); return }
                #expect(code.raw == "CREDENTIALS" && reason.contains("the client secret is wrong") && reason.contains("401"))
            }
            #expect(provider.state.withLock { ($0.tokenRequests, $0.sendRequests) } == (1, 0))
        }
    }

    @Test("an endpoint that does not answer is a retry with the transport's reason")
    func unreachable() async throws {
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "fake", connectTimeout: .seconds(2)))
        let client = FakeProviderClient(url: "http://127.0.0.1:\(try freePort())", secret: "good", transport: transport)
        let results = await client.send([request("ok-1")])
        guard case .retry(let code, let reason, _) = results[0] else { Issue.record("\(results)"); return }
        #expect(code.raw == "TRANSPORT" && reason.hasPrefix("connect"))
        await transport.close()
    }

    @Test("the dispatcher answers NOT_CONFIGURED for an app without the provider, and keeps every result in its place")
    func notConfigured() async throws {
        let provider = try await FakeProvider.start()
        let yaml = "apps:\n  alpha: {}\n  beta: {}\n"
        let dispatcher = try ProviderDispatcher<FakeProviderClient>(
            platform: .hms, apps: AppsConfiguration.parse(yaml), transport: HTTPTransportConfiguration(name: "fake"), logger: Logger(label: "test")
        ) { app, _, transport in
            app == "alpha" ? FakeProviderClient(url: provider.url, secret: "good", transport: transport(nil)) : nil
        }
        #expect(Set(dispatcher.clients.keys) == ["alpha"])
        let results = await dispatcher.send([request("ok-1"), request("ok-2", app: "beta"), request("dead-3"), request("ok-4", app: "gamma")])
        #expect(results == [
            .delivered(providerId: nil),
            .failed(code: DispatchCode.notConfigured, reason: "app beta has no hms settings"),
            .revoked(code: FakeCode("DEAD"), reason: "the provider does not know this token"),
            .failed(code: DispatchCode.notConfigured, reason: "app gamma has no hms settings"),
        ])
        #expect(provider.state.withLock { $0.sendRequests } == 1, "alpha's two deliveries in one request")
        for transport in dispatcher.transports { await transport.close() }
        await provider.stop()
    }

    @Test("a secret file that cannot be read is a configuration error naming the setting and the file")
    func secretFiles() throws {
        #expect {
            _ = try SecretFile.text("/nonexistent/secret", setting: "apps.alpha.hms.clientSecretFile")
        } throws: {
            let error = $0 as? ConfigurationError
            return error?.setting == "apps.alpha.hms.clientSecretFile" && error?.message.contains("/nonexistent/secret") == true
        }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID())")
        try Data("\n".utf8).write(to: empty)
        #expect(throws: ConfigurationError.self) { _ = try SecretFile.text(empty.path, setting: "s") }
        try Data("s3cret\n".utf8).write(to: empty)
        #expect(try SecretFile.text(empty.path, setting: "s") == "s3cret")
        try? FileManager.default.removeItem(at: empty)
    }

    @Test("Retry-After is read as seconds or as an HTTP date", arguments: [
        ("7", 7_000), (" 0 ", 0), ("Fri, 01 Jan 2027 00:00:30 GMT", 30_000), ("Thu, 01 Jan 2026 00:00:00 GMT", 0),
    ])
    func retryAfterParsing(_ value: String, _ milliseconds: Int) {
        let now = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
        #expect(RetryAfter.parse(value, now: now) == .milliseconds(milliseconds))
        #expect(RetryAfter.parse("soon", now: now) == nil)
    }
}
