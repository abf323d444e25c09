import HTTPTypes
import Hummingbird

/// Applies a ``CORSPolicy`` to every route: answers every OPTIONS request itself (a CORS
/// preflight, or a plain OPTIONS such as RFC 9725 §4.1's for WHIP, with `extraOptionsHeaders`)
/// and adds the policy's headers to every other answer, errors included (or a page could not
/// read the 4xx reason).
///
/// Hummingbird's own `CORSMiddleware` puts `Access-Control-Expose-Headers` on the preflight
/// only, where browsers ignore it (a WHIP client could not read `Location`), and leaves a plain
/// OPTIONS to the routes: hence this one.
public struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    public let policy: CORSPolicy
    public let extraOptionsHeaders: HTTPFields

    public init(policy: CORSPolicy, extraOptionsHeaders: HTTPFields = [:]) {
        self.policy = policy
        self.extraOptionsHeaders = extraOptionsHeaders
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin]
        if request.method == .options {
            var headers: HTTPFields = [.allow: policy.methods]
            headers.append(contentsOf: extraOptionsHeaders)
            headers.append(contentsOf: policy.preflightHeaders(origin: origin))
            return Response(status: .noContent, headers: headers)
        }
        let cors = policy.responseHeaders(origin: origin)
        guard !cors.isEmpty else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            for field in cors where field.name != .vary { response.headers[field.name] = field.value }
            if cors[.vary] != nil { response.headers[values: .vary].append("Origin") }
            return response
        } catch {
            throw HeaderAddingError(original: error, headers: cors)
        }
    }
}
