import Foundation

/// A frame from a chat client: one JSON object per WebSocket text message, with `type` and
/// an optional `ref` (any string, echoed in the answer so the client can match them).
///
///     {"type":"join","name":"ada","token":"...","after":41}
///     {"type":"join","token":"<access token (JWT)>"}    (the name comes from the token)
///     {"type":"send","text":"hello","ref":"m1"}
///     {"type":"history","before":120,"limit":50}      (or "after": id)
///     {"type":"who"}                                 (member list)
///     {"type":"ping"}
///     {"type":"ban","user":"bob"}                    (moderators: ``ModerationAction``)
///
/// Unknown fields are ignored (older servers tolerate newer clients).
public enum ClientFrame: Sendable, Equatable {
    /// `name` may be left out when a `token` is given: an access token (JWT) names the member.
    case join(name: String?, token: String?, after: Int64?, ref: String?)
    case send(text: String, ref: String?)
    case history(HistoryPage, ref: String?)
    case who(ref: String?)
    case ping(ref: String?)
    /// A moderator's action; who may is the server's business (the `moderate` grant).
    case moderate(ModerationAction, ref: String?)

    /// Why a frame could not be read, with the `ref` when one was found.
    public struct Problem: Error, Equatable {
        public var code: ChatErrorCode
        public var message: String
        public var ref: String?

        public init(code: ChatErrorCode, message: String, ref: String?) {
            self.code = code
            self.message = message
            self.ref = ref
        }

        /// A problem before its `ref` is attached.
        public struct Detail: Error, Equatable {
            public var code: ChatErrorCode
            public var message: String
        }
    }

    /// The raw shape: every field optional, checked per type below.
    private struct Fields: Decodable {
        var type: String?
        var ref: String?
        var name: String?
        var token: String?
        var after: Int64?
        var before: Int64?
        var limit: Int?
        var text: String?
        var id: Int64?
        var user: String?
        var seconds: Int?
    }

    /// Parses one text frame. `maxPage` caps `history` limits.
    public static func parse(_ text: String, maxPage: Int) throws(Problem) -> ClientFrame {
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(text.utf8))
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw Problem(code: .badRequest, message: "field '\(key)' has the wrong type", ref: nil)
        } catch {
            throw Problem(code: .badJSON, message: "a frame must be one JSON object", ref: nil)
        }
        let ref = fields.ref
        switch fields.type {
        case "join":
            guard fields.name != nil || fields.token != nil else { throw Problem(code: .badName, message: "join needs a name", ref: ref) }
            if let after = fields.after, after < 0 { throw Problem(code: .badRequest, message: "after must be >= 0", ref: ref) }
            return .join(name: fields.name, token: fields.token, after: fields.after, ref: ref)
        case "send":
            guard let text = fields.text else { throw Problem(code: .emptyMessage, message: "send needs a text", ref: ref) }
            return .send(text: text, ref: ref)
        case "history":
            let limit = min(max(fields.limit ?? maxPage, 1), maxPage)
            switch (fields.before, fields.after) {
            case (.some, .some):
                throw Problem(code: .badRequest, message: "history takes before or after, not both", ref: ref)
            case (.some(let before), nil): return .history(.before(id: before, limit: limit), ref: ref)
            case (nil, .some(let after)): return .history(.after(id: after, limit: limit), ref: ref)
            case (nil, nil): return .history(.latest(limit: limit), ref: ref)
            }
        case "who": return .who(ref: ref)
        case "ping": return .ping(ref: ref)
        case nil: throw Problem(code: .badRequest, message: "a frame needs a type", ref: ref)
        case .some(let other):
            let action: ModerationAction?
            do {
                action = try ModerationAction.parse(type: other, id: fields.id, user: fields.user, seconds: fields.seconds)
            } catch {
                throw Problem(code: error.code, message: error.message, ref: ref)
            }
            if let action { return .moderate(action, ref: ref) }
            throw Problem(code: .badRequest, message: "unknown type '\(other.prefix(40))' (join, send, history, who, ping, "
                              + ModerationAction.types.joined(separator: ", ") + ")", ref: ref)
        }
    }
}
