import Foundation
import Hummingbird
import JSONKit
import Logging

/// The HTTP side every service has: `GET /healthz` (the process is alive), `GET /readyz`
/// (every readiness check holds; 503 with the failing checks otherwise) and `GET /metrics`
/// (Prometheus text). Services with an API of their own add routes to the same router.
public enum HealthServer {
    /// Adds the three endpoints to `router`.
    public static func addRoutes(to router: Router<HeraldRequestContext>, service: String, readiness: Readiness) {
        router.get("/healthz") { _, _ -> Response in
            json(.ok, ["status": "ok", "service": service])
        }
        router.get("/readyz") { _, _ -> Response in
            let checks = readiness.evaluate()
            let ready = checks.allSatisfy(\.ready)
            return json(ready ? .ok : .serviceUnavailable, [
                "status": ready ? "ready" : "not ready",
                "service": service,
                "checks": Dictionary(uniqueKeysWithValues: checks.map { ($0.name, $0.ready ? "ok" : "failing") }),
            ])
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: HeraldMetrics.exposition())))
        }
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = (try? JSONValue(any: object))?.json ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
