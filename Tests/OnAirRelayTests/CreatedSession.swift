import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// A 201 answer to a WHIP/WHEP POST: where the session lives and its entity tag.
struct CreatedSession {
    let response: TestResponse
    let location: String
    /// The ETag header as sent (quoted).
    let etag: String
    let answer: String

    init(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws {
        self.response = response
        try #require(response.status == .created, "\(response.status): \(response.text)", sourceLocation: sourceLocation)
        location = try #require(response.headers[.location], sourceLocation: sourceLocation)
        etag = try #require(response.headers[.eTag], sourceLocation: sourceLocation)
        answer = response.text
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
}
