import HTTPTypes
import Hummingbird

/// Adds the console's security headers to every answer under `/console`: a strict
/// Content-Security-Policy (this origin's scripts, styles and requests only; no inline
/// script, no framing), no sniffing, no referrer, and no caching of API answers.
struct ConsoleHeaders<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if request.uri.path.hasPrefix("/console/api/") { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
