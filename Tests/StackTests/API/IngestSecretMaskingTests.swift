import Foundation
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ingest URL's secret travels in its path, so it is shown nowhere: not in any service's
/// log at the `trace` level (which writes every line of every level above it too), not in any
/// span attribute, name or event exported to an OpenTelemetry collector, not in any answer,
/// whether the request was accepted, refused, malformed, too large, or came after a revocation.
extension ServiceProcesses {
    @Suite("Ingest URL secrets are never shown", .needs(.python))
    struct IngestSecretMaskingTests {
        @Test func aSecretAppearsInNoLogLineTraceAttributeOrError() async throws {
            let receiver = try await OTLPReceiver.start()
            defer { receiver.stop() }
            var environment = receiver.environment
            environment["HERALD_LOG_LEVEL"] = "trace"
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0, environment: environment)
            do {
                let made = try await stack.expectOK("POST", "/ingest-urls", ["id": "masked", "source": "evernym"])
                let secret = try #require(made["secret"] as? String)
                let path = try #require(made["path"] as? String)
                let rotated = try await stack.expectOK("POST", "/ingest-urls/masked/secrets")
                let second = try #require(rotated["secret"] as? String)
                var forward = try UpstreamFixture.body("verity-forward-per-com-method")
                forward["sponseeDetails"] = "FCM:masking-token"
                var answers: [(Int, Data)] = []
                func post(_ target: String, _ body: Data, headers: [String: String] = [:]) async {
                    answers.append(await stack.postWithoutCredential(target, body: body, headers: headers))
                }
                let json = try JSONSerialization.data(withJSONObject: forward)
                await post(path, json, headers: ["traceparent": "00-\(String(repeating: "ab", count: 16))-\(String(repeating: "cd", count: 8))-01"])
                await post(path.replacingOccurrences(of: "/evernym/notify", with: "/smartid/push"), json)
                await post(path, Data("{not json".utf8))
                await post(path + "?secret=\(secret)", Data(#"{"msgId":7}"#.utf8))
                await post(path, Data(repeating: UInt8(ascii: " "), count: 70 * 1024))
                await post(path.replacingOccurrences(of: secret, with: second), json)
                try await stack.expectOK("DELETE", "/ingest-urls/masked")
                await post(path, json)
                #expect(answers.map(\.0) == [202, 404, 400, 400, 413, 202, 404], "\(answers.map(\.0))")
                try await eventually(timeout: .seconds(60), "the forward pushed") { !stack.received("masking-token").isEmpty }
                // The gateway's server spans name the ingest path with its secret masked.
                try await eventually(timeout: .seconds(60), "the ingest requests' spans") {
                    receiver.spans().filter { $0.attributes["url.path"]?.hasPrefix("/v1/ingest/hgi_****") == true }.count >= 7
                }
                let leaks = [secret, second].flatMap { secret in
                    let random = String(secret.dropFirst(4))
                    var found: [String] = []
                    for service in stack.services where service.logText().contains(random) { found.append("the log of \(service.name)") }
                    for span in receiver.spans() where "\(span.name) \(span.attributes) \(span.events)".contains(random) { found.append("span \(span)") }
                    for (status, body) in answers where String(decoding: body, as: UTF8.self).contains(random) { found.append("a \(status) answer") }
                    return found
                }
                #expect(leaks.isEmpty, "a secret was shown in: \(leaks)")
                #expect(stack.gateway.logText().contains("trace") || stack.gateway.logText().contains("debug"), "the gateway logged at a low level at all")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}
