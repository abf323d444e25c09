import HTTPTypes
import Hummingbird

/// Applies a ``CORSPolicy`` to every route: adds the policy's headers to every answer, errors
/// included (or a page could not read the 4xx reason), and makes a successful answer to an
/// OPTIONS request a CORS preflight answer, allowing the methods its `Allow` lists (the path's
/// own: ``AllowedMethodsMiddleware`` answers OPTIONS, RFC 9725 §4.2's for WHIP included).
///
/// Hummingbird's own `CORSMiddleware` puts `Access-Control-Expose-Headers` on the preflight
/// only, where browsers ignore it (a WHIP client could not read `Location`), and allows the
/// same methods on every path: hence this one.
public struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    public let policy: CORSPolicy

    public init(policy: CORSPolicy) {
        self.policy = policy
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin]
        let cors = policy.responseHeaders(origin: origin)
        guard !cors.isEmpty else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            var headers = cors
            if request.method == .options, response.status.kind == .successful, let allow = response.headers[.allow] {
                headers = policy.preflightHeaders(origin: origin, methods: allow)
            }
            for field in headers where field.name != .vary { response.headers[field.name] = field.value }
            if headers[.vary] != nil { response.headers[values: .vary].append("Origin") }
            return response
        } catch {
            throw HeaderAddingError(original: error, headers: cors)
        }
    }
}
