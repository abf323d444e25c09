import HTTPTypes
import Hummingbird

/// CORS (Fetch standard, "CORS protocol") for the viewer page, which the relay serves from
/// another origin: answers preflights and adds `Access-Control-Allow-Origin` to every
/// response, errors included (or the page could not read the reason).
struct ChatCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = allowedOrigin(request)
        if request.method == .options {
            var headers: HTTPFields = [.allow: "OPTIONS, GET, POST"]
            if let origin {
                headers[.accessControlAllowOrigin] = origin
                headers[.accessControlAllowMethods] = "OPTIONS, GET, POST"
                headers[.accessControlAllowHeaders] = "Authorization, Content-Type"
                headers[.accessControlMaxAge] = "3600"
                headers[.vary] = "Origin"
            }
            return Response(status: .noContent, headers: headers)
        }
        guard let origin else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[values: .vary].append("Origin")
            return response
        } catch let error as ChatHTTPError {
            var error = error
            error.headers[.accessControlAllowOrigin] = origin
            throw error
        } catch let error as HTTPError {
            var wrapped = ChatHTTPError(error.status, error.body ?? "\(error.status.reasonPhrase)")
            wrapped.headers[.accessControlAllowOrigin] = origin
            throw wrapped
        }
    }

    /// The `Access-Control-Allow-Origin` value for this request, or nil for none.
    func allowedOrigin(_ request: Request) -> String? {
        guard let origin = request.headers[.origin] else { return nil }
        return Self.allows(allowedOrigins, origin: origin) ? (allowedOrigins.contains("*") ? "*" : origin) : nil
    }

    static func allows(_ allowed: [String], origin: String) -> Bool {
        allowed.contains("*") || allowed.contains(origin)
    }
}
