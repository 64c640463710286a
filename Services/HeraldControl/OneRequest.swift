import Foundation
import HTTPTransport

/// One HTTP request on a transport of its own, closed after the answer: how a command of
/// `heraldctl`, which makes a request or two and exits, calls the gateway and the broker's
/// management API.
enum OneRequest {
    static func send(_ request: HTTPRequest, name: String, connectTimeout: Duration, requestTimeout: Duration) async throws -> HTTPResponse {
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: name, connectTimeout: connectTimeout, requestTimeout: requestTimeout))
        let answer: Result<HTTPResponse, any Error>
        do { answer = .success(try await transport.send(request)) } catch { answer = .failure(error) }
        await transport.close()
        return try answer.get()
    }
}
