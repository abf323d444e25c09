import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OnAirDecoding
import OnAirForwarding

/// WHIP (RFC 9725) and WHEP (draft-ietf-wish-whep) resources:
/// `POST /whip/{room}`, `POST /whep/{room}` create sessions at `/{whip|whep}/{room}/{id}`,
/// which take `PATCH` (trickle / ICE restart, RFC 9725 §4.3) and `DELETE` (§4.2).
///
/// A viewer's video layer can be capped: `POST /whep/{room}?max_height=360`, or later
/// `PUT /whep/{room}/{id}/layer` with `{"max_height": 360}` (`null`: automatic again).
struct SignallingController: Sendable {
    let workers: MediaWorkers
    let config: RelayConfig
    /// Who may publish, view and touch a session (static tokens, JWTs).
    let access: RelayAccess
    /// `Link: rel="ice-server"` on every 201 (RFC 9725 §4.6), TURN credentials minted per request.
    let iceServers: ICEServerLinks
    let logger: Logger
    /// The room directory shared with other relays (PostgreSQL), or nil (one relay).
    var directory: PostgresWebhookStore? = nil

    func register(on router: Router<BasicRequestContext>) {
        for kind in [SessionKind.publisher, .viewer] {
            let base = kind == .publisher ? "whip" : "whep"
            router.post("/\(base)/:room") { request, context in
                try await create(kind: kind, request: request, context: context)
            }
            router.patch("/\(base)/:room/:session") { request, context in
                try await patch(kind: kind, request: request, context: context)
            }
            router.delete("/\(base)/:room/:session") { request, context in
                try await delete(kind: kind, request: request, context: context)
            }
        }
        router.put("/whep/:room/:session/layer") { request, context in
            try await setLayerCap(request: request, context: context)
        }
    }

    /// `max_height`: a positive picture height in lines, at most 4320.
    static func maximumHeight(_ value: Substring?) throws -> Int? {
        guard let value else { return nil }
        guard let height = Int(value), (1...4320).contains(height) else {
            throw RelayHTTPError(.badRequest, "max_height must be a picture height in lines, 1...4320 (got \"\(value)\")")
        }
        return height
    }

    private func setLayerCap(request: Request, context: BasicRequestContext) async throws -> Response {
        let room = try RoomID.validated(context.parameters.require("room"))
        let session = try context.parameters.require("session")
        try access.require(.view(room: room), request)
        try requireContentType("application/json", request)
        let body = try await collectBody(request)
        let cap: LayerCapRequest
        do {
            cap = try JSONRequestBody.decode(LayerCapRequest.self, from: Data(body.readableBytesView))
        } catch {
            throw RelayHTTPError(error.isSyntax ? .badRequest : .unprocessableContent,
                                 "\(error); the body must be {\"max_height\": <lines> or null}")
        }
        if let height = cap.maxHeight, !(1...4320).contains(height) {
            throw RelayHTTPError(.unprocessableContent, "max_height must be 1...4320 lines (got \(height))")
        }
        do {
            try await workers.engine(session: session, room: room).perform {
                try $0.setLayerCap(id: session, room: room, maximumHeight: cap.maxHeight)
            }
        } catch let error as EngineError {
            throw httpError(error, kind: .viewer)
        }
        return Response(status: .noContent)
    }

    private func right(_ kind: SessionKind, room: String) -> RelayAccess.Right {
        kind == .publisher ? .publish(room: room) : .view(room: room)
    }

    private func create(kind: SessionKind, request: Request, context: BasicRequestContext) async throws -> Response {
        let room = try RoomID.validated(context.parameters.require("room"))
        try access.require(right(kind, room: room), request)
        try requireContentType("application/sdp", request)
        let body = try await collectBody(request)
        let offer = String(decoding: body.readableBytesView, as: UTF8.self)
        let maximumHeight = try Self.maximumHeight(request.uri.queryParameters["max_height"])
        if maximumHeight != nil && kind == .publisher {
            throw RelayHTTPError(.badRequest, "max_height caps what a viewer receives; it has no meaning for WHIP")
        }
        if kind == .publisher { try await claimInDirectory(room) }
        let created: SessionCreated
        do {
            created = try await workers.createSession(kind: kind, room: room, offer: offer, maximumHeight: maximumHeight)
        } catch let error as EngineError {
            logger.info("refused \(kind.rawValue) in room \(room): \(error)", metadata: ["room": "\(room)"])
            throw httpError(error, kind: kind)
        }
        logger.info("\(kind.rawValue) session \(created.sessionID) created", metadata: ["room": "\(room)", "session": "\(created.sessionID)"])
        var headers: HTTPFields = [
            .contentType: "application/sdp",
            .location: "/\(kind == .publisher ? "whip" : "whep")/\(room)/\(created.sessionID)",
            .eTag: "\"\(created.etag)\"",
            HTTPField.Name("Accept-Patch")!: "application/trickle-ice-sdpfrag",
        ]
        for link in iceServers.links(room: room) { headers.append(HTTPField(name: HTTPField.Name("Link")!, value: link)) }
        return Response(status: .created, headers: headers, body: .init(byteBuffer: ByteBuffer(string: created.answerSDP)))
    }

    /// One publisher per room across relays: `409` when another relay serves the room. With
    /// the database away, publishing goes on without the check (logged), as the relay's media
    /// never depends on the database.
    private func claimInDirectory(_ room: String) async throws {
        guard let directory else { return }
        let holder: String?
        do {
            holder = try await directory.claimRoom(room)
        } catch {
            logger.warning("room directory unavailable, publishing to room \(room) without the cross-relay check: \(error)")
            return
        }
        if let holder {
            throw RelayHTTPError(.conflict, "room \(room) already has a live publisher on relay \(holder); publish there, "
                                     + "or wait for that stream to end")
        }
    }

    private func patch(kind: SessionKind, request: Request, context: BasicRequestContext) async throws -> Response {
        let room = try RoomID.validated(context.parameters.require("room"))
        let session = try context.parameters.require("session")
        try access.require(right(kind, room: room), request)
        try requireContentType("application/trickle-ice-sdpfrag", request)
        let body = try await collectBody(request)
        let fragment = String(decoding: body.readableBytesView, as: UTF8.self)
        let ifMatch = request.headers[.ifMatch]
        do {
            let result = try await workers.engine(session: session, room: room).perform {
                try $0.patchSession(id: session, room: room, kind: kind, ifMatch: ifMatch, fragment: fragment)
            }
            switch result {
            case .trickleAccepted:
                return Response(status: .noContent)
            case .restarted(let answer, let etag):
                logger.info("ICE restart", metadata: ["room": "\(room)", "session": "\(session)"])
                return Response(status: .ok,
                                headers: [.contentType: "application/trickle-ice-sdpfrag", .eTag: "\"\(etag)\""],
                                body: .init(byteBuffer: ByteBuffer(string: answer)))
            }
        } catch let error as EngineError {
            throw httpError(error, kind: kind)
        }
    }

    private func delete(kind: SessionKind, request: Request, context: BasicRequestContext) async throws -> Response {
        let room = try RoomID.validated(context.parameters.require("room"))
        let session = try context.parameters.require("session")
        try access.require(right(kind, room: room), request)
        do {
            try await workers.engine(session: session, room: room).perform { try $0.deleteSession(id: session, room: room, kind: kind) }
        } catch let error as EngineError {
            throw httpError(error, kind: kind)
        }
        logger.info("\(kind.rawValue) session deleted", metadata: ["room": "\(room)", "session": "\(session)"])
        return Response(status: .ok)
    }

    /// A 415 names the type taken: in `Accept-Patch` for a PATCH (RFC 5789 §2.2), else in
    /// `Accept-Post` (W3C LDP §7.1; on the layer's PUT too, for want of an `Accept-Put`).
    private func requireContentType(_ expected: String, _ request: Request) throws {
        let given = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard given == expected else {
            let accept = HTTPField.Name(request.method == .patch ? "Accept-Patch" : "Accept-Post")!
            throw RelayHTTPError(.unsupportedMediaType, "Content-Type must be \(expected) (got \(given ?? "none"))",
                                 headers: [accept: expected])
        }
    }

    private func collectBody(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: config.limits.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw RelayHTTPError(.contentTooLarge, "body larger than \(config.limits.maxBodyBytes) bytes")
        }
    }

    private func httpError(_ error: EngineError, kind: SessionKind) -> RelayHTTPError {
        switch error {
        case .badRequest(let reason): return RelayHTTPError(.badRequest, reason)
        case .unprocessable(let reason): return RelayHTTPError(.unprocessableContent, reason)
        case .roomBusy(let reason): return RelayHTTPError(.conflict, reason)
        case .notLive(let reason): return RelayHTTPError(.conflict, reason, headers: [.retryAfter: "2"])
        case .unknownSession: return RelayHTTPError(.notFound, "no such session (it may have ended)")
        case .overloaded(let reason): return RelayHTTPError(.serviceUnavailable, reason, headers: [.retryAfter: "5"])
        case .preconditionFailed: return RelayHTTPError(.preconditionFailed, error.description)
        case .preconditionRequired: return RelayHTTPError(.preconditionRequired, error.description)
        }
    }
}
