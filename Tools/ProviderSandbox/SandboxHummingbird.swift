import Foundation
import HTTPTypes
import Hummingbird

extension Sandbox {
    /// Serves the sandbox's endpoints on a Hummingbird router (the plain HTTP/1.1 side, next
    /// to the service's health and metrics endpoints). A route of any method (`*`) is served
    /// for GET, POST, PUT and DELETE.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        for route in routes {
            for method in route.method == "*" ? ["GET", "POST", "PUT", "DELETE"] : [route.method] {
                router.on(RouterPath(route.path), method: HTTPRequest.Method(method)!) { request, _ -> Response in
                    let buffer = try await request.body.collect(upTo: SandboxHTTP.maxBody)
                    var headers: [String: String] = [:]
                    for field in request.headers { headers[field.name.canonicalName] = field.value }
                    let reply = self.handle(SandboxRequest(method: request.method.rawValue, target: request.uri.description, headers: headers, body: Data(buffer.readableBytesView)))
                    if reply.delayMilliseconds > 0 { try await Task.sleep(for: .milliseconds(reply.delayMilliseconds)) }
                    var fields = HTTPFields()
                    for header in reply.headers { fields[HTTPField.Name(header.name)!] = header.value }
                    return Response(status: .init(code: reply.status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
                }
            }
        }
    }
}
