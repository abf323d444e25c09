import HTTPTypes
import Hummingbird
import NIOCore

/// An HTTP error with a plain-text reason in the body, as WHIP/WHEP clients show it to
/// people (RFC 9725 §4.5 leaves the body format open; text is what curl users can read).
public struct RelayHTTPError: Error, HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var reason: String
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, _ reason: String, headers: HTTPFields = [:]) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers,
                        body: .init(byteBuffer: ByteBuffer(string: reason + "\n")))
    }

    public var description: String { "\(status.code) \(reason)" }
}
