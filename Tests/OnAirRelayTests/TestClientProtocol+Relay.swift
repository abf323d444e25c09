import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The WHIP/WHEP requests the tests make, spelled the way clients send them.
extension TestClientProtocol {
    /// POSTs an offer (or any body) as WHIP/WHEP clients do.
    func post(_ uri: String, _ body: String, contentType: String? = "application/sdp", headers: HTTPFields = [:])
        async throws -> TestResponse {
        var fields = headers
        if let contentType { fields[.contentType] = contentType }
        return try await execute(uri: uri, method: .post, headers: fields, body: ByteBuffer(string: body))
    }

    func patch(_ uri: String, _ fragment: String, ifMatch: String? = nil, headers: HTTPFields = [:],
               contentType: String = "application/trickle-ice-sdpfrag") async throws -> TestResponse {
        var fields = headers
        fields[.contentType] = contentType
        if let ifMatch { fields[.ifMatch] = ifMatch }
        return try await execute(uri: uri, method: .patch, headers: fields, body: ByteBuffer(string: fragment))
    }

    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    func delete(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .delete, headers: headers)
    }

    /// POSTs a publisher offer to room `room` and requires 201; returns the session.
    func publish(room: String = "42", offer: String = TestOffers.publisher(), headers: HTTPFields = [:],
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> CreatedSession {
        let response = try await post("/whip/\(room)", offer, headers: headers)
        return try CreatedSession(response, sourceLocation: sourceLocation)
    }

    /// POSTs a viewer offer to room `room` and requires 201; returns the session.
    func watch(room: String = "42", offer: String = TestOffers.viewer(), headers: HTTPFields = [:],
               sourceLocation: SourceLocation = #_sourceLocation) async throws -> CreatedSession {
        let response = try await post("/whep/\(room)", offer, headers: headers)
        return try CreatedSession(response, sourceLocation: sourceLocation)
    }
}
