import Foundation
import Hummingbird
import NIOCore
import OnAirChatProtocol

/// `POST /rooms/{id}/moderation`: a moderator's action over REST. The body is the action's
/// client frame (``ModerationAction``: `{"type":"ban","user":"bob"}`), the caller a JWT
/// granting `moderate` in the room; the room then does exactly what the frame would do.
struct ModerationREST: Sendable {
    let services: ChatServices
    let rest: RoomREST

    struct DoneBody: Encodable {
        var event: ModerationEvent
    }

    func moderate(_ id: String, request: Request) async throws -> Response {
        // Authenticated before the body is read.
        let claims = try services.access.moderate(request, room: id)
        let bytes = try await rest.body(of: request)
        let action: ModerationAction
        do {
            guard case .moderate(let parsed, _) = try ClientFrame.parse(String(buffer: bytes), maxPage: 1) else {
                throw ChatHTTPError(.badRequest, Self.shape)
            }
            action = parsed
        } catch let problem as ClientFrame.Problem {
            throw ChatHTTPError(.badRequest, "\(problem.message); \(Self.shape)")
        }
        guard let room = try await services.directory.room(id, create: true) else {
            throw ChatHTTPError(.serviceUnavailable, "shutting down")
        }
        let result: Result<ModerationEvent, RoomRefusal>
        do { result = try await room.ask { .moderate(ModerationRequest(action: action, by: claims.subject), $0) } } catch {
            throw ChatHTTPError(.serviceUnavailable, "shutting down")
        }
        switch result {
        case .success(let event):
            return try rest.json(.ok, DoneBody(event: event))
        case .failure(.notFound):
            throw ChatHTTPError(.notFound, "room \(id) has no message \(action.messageID ?? 0)")
        case .failure(let other):
            throw ChatHTTPError(.serviceUnavailable, "not done (\(other)); retry later")
        }
    }

    static let shape = #"the body must be one action: {"type": "delete", "id": 17}, {"type": "mute", "user": "bob", "seconds": 300}, "#
        + #"{"type": "kick"|"ban"|"unban", "user": "bob"} or {"type": "slow_mode", "seconds": 10}"#
}
