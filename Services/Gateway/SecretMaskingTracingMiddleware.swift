import Hummingbird
import ServiceKit

/// Hummingbird's tracing middleware (a server span per request, continuing the caller's
/// `traceparent`), shown a request whose ingest URL secret is masked (`IngestSecrets.maskedPath`)
/// and whose query is left out, so no span attribute carries the secret; the route still gets
/// the request as it came.
struct SecretMaskingTracingMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext
    let tracing = TracingMiddleware<HeraldRequestContext>()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix(IngestSecrets.pathPrefix) else { return try await tracing.handle(request, context: context, next: next) }
        // The query is left out: an ingest endpoint takes none, and one may hold the secret again.
        var head = request.head
        head.path = IngestSecrets.maskedPath(request.uri.path)
        let shown = Request(head: head, body: request.body)
        return try await tracing.handle(shown, context: context) { _, context in try await next(request, context) }
    }
}
