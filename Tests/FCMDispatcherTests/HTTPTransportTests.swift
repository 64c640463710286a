import Foundation
import HTTPTransport
import Testing

@Suite("HTTP over libcurl")
struct HTTPTransportTests {
    @Test func httpsSpeaksHTTP2AndPlainHTTPSpeaksHTTP1() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let secure = try await transport.send(HTTPRequest(url: "\(sandbox.endpoint)/sandbox/credentials"))
        #expect(secure.status == 200 && secure.httpVersion == "2")
        #expect(secure.header("Content-Type")?.hasPrefix("application/json") == true)
        let plain = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(sandbox.running.httpPort)/sandbox/faults"))
        #expect(plain.status == 200 && plain.httpVersion == "1.1")
        await transport.close()
        await sandbox.stop()
    }

    @Test func manyConcurrentRequestsShareOneConnectionAndAllComplete() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport(streams: 50)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<1000 {
                group.addTask { try await transport.send(HTTPRequest(url: "\(sandbox.endpoint)/sandbox/faults?n=\(n)")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 1000 && statuses.allSatisfy { $0 == 200 })
        await transport.close()
        await sandbox.stop()
    }

    @Test func aRequestBodyAndHeadersArriveAndTheAnswerComesBack() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let response = try await transport.send(HTTPRequest(
            method: "PUT", url: "\(sandbox.endpoint)/sandbox/faults", headers: [("Content-Type", "application/json")],
            body: Data(#"{"latencyMs": 5}"#.utf8)))
        #expect(response.status == 200)
        #expect(sandbox.state.currentFaults.latencyMilliseconds == 5)
        await transport.close()
        await sandbox.stop()
    }

    @Test func aRefusedConnectionIsAConnectError() async throws {
        let transport = HTTPTransport()
        await #expect { _ = try await transport.send(HTTPRequest(url: "https://127.0.0.1:1/")) } throws: {
            ($0 as? HTTPTransportError)?.reason == .connect
        }
        await transport.close()
    }

    @Test func anUntrustedCertificateIsATLSError() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = HTTPTransport()
        await #expect { _ = try await transport.send(HTTPRequest(url: "\(sandbox.endpoint)/sandbox/faults")) } throws: {
            ($0 as? HTTPTransportError)?.reason == .tls
        }
        await transport.close()
        await sandbox.stop()
    }

    @Test func aSlowAnswerTimesOut() async throws {
        let sandbox = try await FCMTestSandbox.start()
        let transport = sandbox.transport()
        let client = sandbox.client(transport: transport)
        let token = try await client.tokens.token()
        let body = Data(#"{"message":{"token":"slow-3000-t","data":{"a":"b"}}}"#.utf8)
        await #expect {
            _ = try await transport.send(HTTPRequest(
                method: "POST", url: client.sendURL, headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                body: body, timeout: .milliseconds(300)))
        } throws: {
            ($0 as? HTTPTransportError)?.reason == .timeout
        }
        await transport.close()
        await sandbox.stop()
    }

    @Test func aClosedTransportRefusesNewRequests() async throws {
        let transport = HTTPTransport()
        await transport.close()
        await #expect { _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:1/")) } throws: {
            ($0 as? HTTPTransportError)?.reason == .shutdown
        }
    }
}
