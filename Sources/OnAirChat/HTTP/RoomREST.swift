import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OnAirDecoding
import OnAirChatProtocol

/// `GET /rooms/{id}`, `GET /rooms/{id}/messages` and `POST /rooms/{id}/messages` (bots).
struct RoomREST: Sendable {
    let services: ChatServices

    struct RoomBody: Encodable {
        var room: String
        var state: String
        var presence: Int
        var lastMessageID: Int64
        var closedReason: String?
        var generation: Int64?
        var viewers: Int?
        var slowModeSeconds: Int
        var updatedAt: String

        enum CodingKeys: String, CodingKey {
            case room, state, presence, lastMessageID = "last_message_id", closedReason = "closed_reason"
            case generation, viewers, slowModeSeconds = "slow_mode_seconds", updatedAt = "updated_at"
        }
    }

    struct MessagesBody: Encodable {
        var room: String
        var messages: [WireMessage]
        var more: Bool
    }

    struct PostBody: Decodable {
        var text: String
        var name: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case text, name }

        init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            text = try c.decode(String.self, forKey: .text)
            name = try c.decodeIfPresent(String.self, forKey: .name)
        }
    }

    struct PostedBody: Encodable {
        var message: WireMessage
    }

    func room(_ id: String) async throws -> Response {
        let snapshot: RoomSnapshot
        if let room = await services.directory.loadedRoom(id), let live = try? await room.ask({ .snapshot($0) }) {
            snapshot = live
        } else if let record = try await services.store.room(id) {
            snapshot = RoomSnapshot(record: record, presence: 0)
        } else {
            throw ChatHTTPError(.notFound, "no room \(id): a room exists once someone joins it or a stream event names it")
        }
        let r = snapshot.record
        return try json(.ok, RoomBody(room: id, state: r.state.rawValue, presence: snapshot.presence, lastMessageID: r.lastMessageID,
                                      closedReason: r.closedReason, generation: r.generation, viewers: r.viewers,
                                      slowModeSeconds: r.slowModeSeconds,
                                      updatedAt: RFC3339.format(milliseconds: r.updatedAt)))
    }

    func messages(_ id: String, query: Hummingbird.Parameters) async throws -> Response {
        let maxPage = services.config.rooms.maxPage
        func number(_ name: String) throws -> Int64? {
            guard let raw = query.get(name) else { return nil }
            guard let value = Int64(raw), value >= 0 else { throw ChatHTTPError(.badRequest, "\(name) must be a whole number >= 0") }
            return value
        }
        let limit = Int(min(try number("limit") ?? Int64(50), Int64(maxPage)))
        guard limit >= 1 else { throw ChatHTTPError(.badRequest, "limit must be 1...\(maxPage)") }
        let page: HistoryPage
        switch (try number("after"), try number("before")) {
        case (.some, .some): throw ChatHTTPError(.badRequest, "give after or before, not both")
        case (.some(let after), nil): page = .after(id: after, limit: limit)
        case (nil, .some(let before)): page = .before(id: before, limit: limit)
        case (nil, nil): page = .latest(limit: limit)
        }
        guard try await services.store.room(id) != nil else { throw ChatHTTPError(.notFound, "no room \(id)") }
        let result = try await services.store.page(room: id, page)
        return try json(.ok, MessagesBody(room: id, messages: result.messages.map(WireMessage.init), more: result.more))
    }

    /// A request's body, at most `limits.max_frame_bytes` (a REST post is bound like a frame).
    func body(of request: Request) async throws -> ByteBuffer {
        let maxBytes = services.config.limits.maxFrameBytes
        do {
            return try await request.body.collect(upTo: maxBytes)
        } catch is NIOTooManyBytesError {
            throw ChatHTTPError(.contentTooLarge, "body larger than \(maxBytes) bytes (limits.max_frame_bytes)")
        }
    }

    func post(_ id: String, request: Request) async throws -> Response {
        // Authenticated before the body is read; a JWT posts as its user, the bot token as the body's name.
        let claims = try services.access.post(request, room: id)
        let bytes = try await body(of: request)
        let body: PostBody
        do {
            body = try JSONRequestBody.decode(PostBody.self, from: Data(buffer: bytes))
        } catch {
            throw ChatHTTPError(error.isSyntax ? .badRequest : .unprocessableContent,
                                "\(error); the body must be {\"text\": \"...\", \"name\": \"bot name\"}")
        }
        let limits = services.config.limits
        guard case .ok(let name) = TextRules.displayName(claims?.displayName ?? body.name ?? "bot", maxChars: limits.maxNameChars) else {
            throw ChatHTTPError(.badRequest, "name must be 1-\(limits.maxNameChars) characters without control characters")
        }
        let text: String
        switch TextRules.message(body.text, maxChars: limits.maxMessageChars) {
        case .ok(let valid): text = valid
        case .refused(_, let why): throw ChatHTTPError(.badRequest, why)
        }
        guard let room = try await services.directory.room(id, create: true) else {
            throw ChatHTTPError(.serviceUnavailable, "shutting down")
        }
        let draft = MessageDraft(room: id, kind: claims == nil ? .bot : .user, name: name, text: text, at: services.clock.milliseconds(),
                                 userID: claims?.subject)
        let result: Result<ChatMessage, RoomRefusal>
        let moderator = claims?.allows(.moderate, in: id) ?? false
        do { result = try await room.ask { .post(draft, moderator: moderator, $0) } } catch {
            throw ChatHTTPError(.serviceUnavailable, "shutting down")
        }
        switch result {
        case .success(let message):
            return try json(.created, PostedBody(message: WireMessage(message)))
        case .failure(.closed(let reason)):
            throw ChatHTTPError(.conflict, "room \(id) is closed: the stream ended (\(reason ?? "unknown"))")
        case .failure(.muted(let until)):
            throw ChatHTTPError(.forbidden, "muted: a moderator muted this user in room \(id) until \(RFC3339.format(milliseconds: until))")
        case .failure(.banned):
            throw ChatHTTPError(.forbidden, "banned: \(RoomWorker.bannedMessage(id))")
        case .failure(.slowMode(let wait)):
            throw ChatHTTPError(.tooManyRequests, "slow mode: one message per user every \(wait) ms or more; retry later",
                                headers: [.retryAfter: String((wait + 999) / 1000)])
        case .failure(.rateLimited(let wait)):
            throw ChatHTTPError(.tooManyRequests,
                                "slow down: at most \(services.config.limits.userMessagesPerSecond) messages per second per user",
                                headers: [.retryAfter: String((wait + 999) / 1000)])
        case .failure(let other):
            throw ChatHTTPError(.serviceUnavailable, "not stored (\(other)); retry later")
        }
    }

    func json(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
