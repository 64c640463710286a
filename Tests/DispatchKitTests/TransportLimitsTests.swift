import DispatchKit
import Foundation
import HeraldTestSupport
import HTTPTransport
import Testing

/// What keeps one HTTP transport usable for many tenants' endpoints.
@Suite("HTTP transport limits")
struct TransportLimitsTests {
    /// A `send` to `/send` of `provider`'s with the given tokens, timed.
    func send(_ transport: HTTPTransport, to provider: FakeProvider, _ token: String) async -> (Result<HTTPResponse, HTTPTransportError>, Duration) {
        let started = ContinuousClock.now
        do {
            let response = try await transport.send(HTTPRequest(
                method: "POST", url: provider.url + "/send", headers: [("Authorization", "Bearer none")],
                body: Data(#"{"tokens":["\#(token)"]}"#.utf8)))
            return (.success(response), .now - started)
        } catch {
            return (.failure(error as! HTTPTransportError), .now - started)
        }
    }

    @Test("a slow host cannot take every slot: another host's request goes first")
    func perHostLimit() async throws {
        let slow = try await FakeProvider.start()
        let fast = try await FakeProvider.start()
        // The fake answers 401 at once to an unknown access token: the slow host's requests
        // carry a valid one, so they reach the slow answer.
        _ = slow.token(form: "client_secret=good")
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(
            name: "limits", maxConcurrentStreams: 8, maxConcurrentRequests: 4, maxRequestsPerHost: 2, maxQueueWait: .seconds(120)))
        let slowRequests = (0..<4).map { _ in HTTPRequest(
            method: "POST", url: slow.url + "/send", headers: [("Authorization", "Bearer access-1")],
            body: Data(#"{"tokens":["slow-1"]}"#.utf8)) }
        let finished = Counter()
        async let slowDone: [Int] = withTaskGroup(of: Int.self) { group in
            for request in slowRequests {
                group.addTask {
                    let status = (try? await transport.send(request))?.status ?? 0
                    await finished.increment()
                    return status
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        try await eventually("the slow host's requests to be under way") { transport.requestsInFlight == 2 }
        let (fastResult, _) = await send(transport, to: fast, "ok-1")
        #expect((try? fastResult.get())?.status == 401, "the fast host answered")
        #expect(await finished.value == 0, "it went before the slow host's queue, not behind it")
        #expect(await slowDone == [Int](repeating: 200, count: 4))
        await transport.close()
        await slow.stop()
        await fast.stop()
    }

    @Test("a request that waits too long for a slot fails as overloaded")
    func queueWait() async throws {
        let provider = try await FakeProvider.start()
        _ = provider.token(form: "client_secret=good")
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(
            name: "limits", maxRequestsPerHost: 1, maxQueueWait: .milliseconds(300)))
        let slow = HTTPRequest(method: "POST", url: provider.url + "/send", headers: [("Authorization", "Bearer access-1")], body: Data(#"{"tokens":["slow-1"]}"#.utf8))
        async let first = try? transport.send(slow)
        try await eventually("the slow request to hold the host's one slot") { transport.requestsInFlight == 1 }
        let (second, _) = await send(transport, to: provider, "ok-2")
        guard case .failure(let error) = second else { Issue.record("the second request got a slot"); return }
        #expect(error.reason == .overloaded)
        #expect(await first?.status == 200)
        await transport.close()
        await provider.stop()
    }

    @Test("a response body over the cap is not read, and fails the request")
    func bodyCap() async throws {
        let provider = try await FakeProvider.start()
        _ = provider.token(form: "client_secret=good")
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "limits", maxResponseBodyBytes: 16 * 1024))
        let big = HTTPRequest(method: "POST", url: provider.url + "/send", headers: [("Authorization", "Bearer access-1")], body: Data(#"{"tokens":["big-1"]}"#.utf8))
        await #expect {
            _ = try await transport.send(big)
        } throws: { ($0 as? HTTPTransportError)?.reason == .responseTooLarge }
        let small = HTTPRequest(method: "POST", url: provider.url + "/send", headers: [("Authorization", "Bearer access-1")], body: Data(#"{"tokens":["ok-1"]}"#.utf8))
        #expect(try await transport.send(small).status == 200, "the transport goes on")
        await transport.close()
        await provider.stop()
    }

    @Test("a closed transport refuses new requests")
    func closed() async throws {
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "limits"))
        await transport.close()
        await #expect {
            _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:1/"))
        } throws: { ($0 as? HTTPTransportError)?.reason == .shutdown }
    }
}

/// Counts finished requests.
actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}
