import HTTPTypes
import Hummingbird

/// Answers by a path's methods (``RouteMethods``) what no route of it took:
///
/// - `OPTIONS` on a known path: `204` with `Allow` listing what the path takes (RFC 9110
///   §9.3.7), plus that path's `optionsHeaders` (RFC 9725 §4.2's `Accept-Post`, RFC 5789 §3.1's
///   `Accept-Patch`, §4.6's ICE servers with credentials minted per request: hence a function
///   of the request). ``CORSPolicyMiddleware`` makes it a CORS preflight answer.
/// - any other method a known path does not take: `405` with `Allow` (RFC 9110 §15.5.6), in
///   the server's error format (`refusal`).
/// - an unknown path, whatever the method: on to the router's `404`.
///
/// Add it to the router after the last route: middleware applies to the routes added after
/// it, and to the router's not-found answer, so this one sees only requests no route took.
public struct AllowedMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
    public let routes: RouteMethods
    /// What a path's OPTIONS answer adds, made for each request.
    public let optionsHeaders: [(path: RouterPath, headers: @Sendable (Request) -> HTTPFields)]
    /// The server's error for a status, a reason and headers.
    public let refusal: @Sendable (HTTPResponse.Status, String, HTTPFields) -> any Error

    public init(routes: RouteMethods, optionsHeaders: [(path: RouterPath, headers: @Sendable (Request) -> HTTPFields)] = [],
                refusal: @escaping @Sendable (HTTPResponse.Status, String, HTTPFields) -> any Error) {
        self.routes = routes
        self.optionsHeaders = optionsHeaders
        self.refusal = refusal
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let route = routes.route(of: request.uri.path) else { return try await next(request, context) }
        if request.method == .options {
            var headers: HTTPFields = [.allow: route.allow]
            for extra in optionsHeaders where extra.path == route.path { headers.append(contentsOf: extra.headers(request)) }
            return Response(status: .noContent, headers: headers)
        }
        guard route.methods.contains(request.method) else {
            let reason = "\(request.method.rawValue) is not a method of this resource; it takes \(route.allow)"
            throw refusal(.methodNotAllowed, reason, [.allow: route.allow])
        }
        return try await next(request, context)
    }
}
