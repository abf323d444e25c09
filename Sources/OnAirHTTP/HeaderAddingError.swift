import HTTPTypes
import Hummingbird

/// An error that renders as the original would, plus headers (CORS must reach the browser on
/// errors too, or a script cannot read the 4xx reason).
public struct HeaderAddingError: HTTPResponseError {
    public let original: any Error
    public let headers: HTTPFields

    public init(original: any Error, headers: HTTPFields) {
        self.original = original
        self.headers = headers
    }

    public var status: HTTPResponse.Status { (original as? HTTPResponseError)?.status ?? .internalServerError }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
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
