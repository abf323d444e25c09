import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An HTTP error whose body is JSON `{"error": "<reason>"}`, readable by scripts and people.
public struct ChatHTTPError: Error, HTTPResponseError, CustomStringConvertible {
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
        headers[.contentType] = "application/json"
        let body = (try? JSONEncoder().encode(["error": reason])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    public var description: String { "\(status.code) \(reason)" }
}
