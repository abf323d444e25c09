import HTTPTypes
import Hummingbird

/// Answers every OPTIONS request itself (RFC 9725 §4.1: WHIP endpoints answer OPTIONS with
/// `Accept-Post: application/sdp`; browsers send it as the CORS preflight) and adds CORS
/// headers to every other response, exposing the WHIP/WHEP headers scripts must read.
struct SignallingCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: [String]
    let iceServerLinks: [String]

    static var exposedHeaders: String { "Location, ETag, Link, Accept-Post, Accept-Patch, Retry-After, WWW-Authenticate" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = allowedOrigin(for: request)
        if request.method == .options {
            var headers: HTTPFields = [
                .allow: "OPTIONS, GET, POST, PUT, PATCH, DELETE",
                HTTPField.Name("Accept-Post")!: "application/sdp",
                HTTPField.Name("Accept-Patch")!: "application/trickle-ice-sdpfrag",
            ]
            for link in iceServerLinks { headers.append(HTTPField(name: HTTPField.Name("Link")!, value: link)) }
            if let origin {
                headers[.accessControlAllowOrigin] = origin
                headers[.accessControlAllowMethods] = "OPTIONS, GET, POST, PUT, PATCH, DELETE"
                headers[.accessControlAllowHeaders] = "Authorization, Content-Type, If-Match"
                headers[.accessControlExposeHeaders] = Self.exposedHeaders
                headers[.accessControlMaxAge] = "3600"
                headers[.vary] = "Origin"
            }
            return Response(status: .noContent, headers: headers)
        }
        guard let origin else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
            response.headers[values: .vary].append("Origin")
            return response
        } catch {
            throw HeaderAddingError(original: error, headers: [
                .accessControlAllowOrigin: origin,
                .accessControlExposeHeaders: Self.exposedHeaders,
            ])
        }
    }

    /// The Access-Control-Allow-Origin value for this request, or nil for no CORS headers.
    private func allowedOrigin(for request: Request) -> String? {
        guard let origin = request.headers[.origin] else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }
}

/// An error that renders as the original would, plus headers (CORS must reach the browser on
/// errors too, or a script cannot read the 4xx reason).
struct HeaderAddingError: HTTPResponseError {
    let original: any Error
    let headers: HTTPFields

    var status: HTTPResponse.Status { (original as? HTTPResponseError)?.status ?? .internalServerError }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response: Response
        if let original = original as? HTTPResponseError {
            response = try original.response(from: request, context: context)
        } else {
            response = Response(status: .internalServerError)
        }
        for field in headers { response.headers[field.name] = field.value }
        return response
    }
}
