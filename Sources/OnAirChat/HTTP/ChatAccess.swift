import HTTPTypes
import Hummingbird
import OnAirAuth
import OnAirChatProtocol
import OnAirTokenFormat

/// Who may join, post and read, decided in one place for the WebSocket and REST: the static
/// tokens of config/chat.yaml (`auth.join_token`, `auth.bot_token`) and access tokens (JWT,
/// issue 28) with the `chat` grant for the room. With a JWT the member is the token's `sub`,
/// named by its `name`: what the join frame says is ignored.
struct ChatAccess: Sendable {
    let config: ChatConfig
    /// nil when `auth.jwt` sets no key: JWTs are not taken.
    let verifier: TokenVerifier?

    static let realm = "onair-chat"

    /// Who joined: from a token (id and name fixed), or from the frame (open chat, static token).
    enum Identity: Equatable {
        case token(AccessClaims)
        case frame
    }

    /// A refusal as the chat's error frame says it: code, one-word reason, message.
    struct Refusal: Error, Equatable {
        var code: ChatErrorCode
        var reason: String?
        var message: String
    }

    private var jwtRequired: Bool { verifier != nil && config.auth.jwt.required }

    /// The join frame's `token` for `room`.
    func join(token: String?, room: String) -> Result<Identity, Refusal> {
        if let token, let verifier, TokenVerifier.looksLikeJWT(token) {
            return claims(verifier, token, room: room).map { Identity.token($0) }
        }
        if jwtRequired {
            return .failure(Refusal(code: .unauthorized, reason: "token_required",
                                    message: token == nil ? "join needs an access token (auth.jwt.required)"
                                                          : "join needs an access token (JWT); static tokens are off"))
        }
        if let expected = config.auth.joinToken {
            guard let token, BearerCredential.constantTimeEqual(token, expected) else {
                return .failure(Refusal(code: .unauthorized, reason: nil, message: token == nil ? "join needs a token" : "wrong token"))
            }
        }
        return .success(.frame)
    }

    /// A JWT's claims when it grants `chat` in `room`.
    private func claims(_ verifier: TokenVerifier, _ token: String, room: String) -> Result<AccessClaims, Refusal> {
        let claims: AccessClaims
        do {
            claims = try verifier.verify(token)
        } catch {
            return .failure(Refusal(code: .invalidToken, reason: error.code, message: error.description))
        }
        guard claims.grants.contains(.chat) else {
            let held = claims.grants.map(\.rawValue).sorted().joined(separator: ",")
            return .failure(Refusal(code: .forbidden, reason: "missing_grant",
                                    message: "the token does not grant chat (it grants \(held.isEmpty ? "nothing" : held))"))
        }
        guard claims.room?.matches(room) ?? false else {
            return .failure(Refusal(code: .forbidden, reason: "wrong_room",
                                    message: "the token is for room \(claims.room?.description ?? "(none)"), not room \(room)"))
        }
        return .success(claims)
    }

    /// `POST /rooms/{id}/messages`: the bot token (nil back: post as the body's name) or a JWT
    /// granting `chat` in the room (its claims back: post as the token's user).
    func post(_ request: Request, room: String) throws -> AccessClaims? {
        guard let header = request.headers[.authorization] else {
            if config.auth.botToken == nil && verifier == nil {
                throw ChatHTTPError(.forbidden, "bot posting is off (set auth.bot_token or ONAIR_CHAT_BOT_TOKEN, or auth.jwt)")
            }
            throw ChatHTTPError(.unauthorized, "needs Authorization: Bearer <bot token or access token>",
                                headers: [.wwwAuthenticate: BearerCredential.challenge(realm: Self.realm)])
        }
        guard let token = BearerCredential.token(fromAuthorization: header) else {
            throw Self.invalidToken("the Authorization header must use the Bearer scheme")
        }
        if let expected = config.auth.botToken, !jwtRequired, BearerCredential.constantTimeEqual(token, expected) { return nil }
        guard let verifier, TokenVerifier.looksLikeJWT(token) else {
            if config.auth.botToken == nil && verifier == nil {
                throw ChatHTTPError(.forbidden, "bot posting is off (set auth.bot_token or ONAIR_CHAT_BOT_TOKEN, or auth.jwt)")
            }
            throw Self.invalidToken(jwtRequired ? "an access token (JWT) is required (auth.jwt.required)" : "wrong bot token")
        }
        return try httpClaims(verifier, token, room: room)
    }

    /// `POST /rooms/{id}/moderation`: a JWT granting `moderate` in the room (its claims back).
    /// No credentials is 401 (RFC 6750 §3) before anything else, even when `auth.jwt` is off.
    func moderate(_ request: Request, room: String) throws -> AccessClaims {
        guard let header = request.headers[.authorization] else {
            throw ChatHTTPError(.unauthorized, "needs Authorization: Bearer <access token with the moderate grant>",
                                headers: [.wwwAuthenticate: BearerCredential.challenge(realm: Self.realm)])
        }
        guard let verifier else {
            throw ChatHTTPError(.forbidden, "moderation needs access tokens (set auth.jwt)")
        }
        guard let token = BearerCredential.token(fromAuthorization: header), TokenVerifier.looksLikeJWT(token) else {
            throw Self.invalidToken("moderation needs an access token (JWT) as Bearer")
        }
        let claims: AccessClaims
        do {
            claims = try verifier.verify(token)
        } catch {
            throw Self.invalidToken(error.description)
        }
        let refusal: String?
        if !claims.grants.contains(.moderate) {
            let held = claims.grants.map(\.rawValue).sorted().joined(separator: ",")
            refusal = "the token does not grant moderate (it grants \(held.isEmpty ? "nothing" : held))"
        } else if !(claims.room?.matches(room) ?? false) {
            refusal = "the token is for room \(claims.room?.description ?? "(none)"), not room \(room)"
        } else {
            refusal = nil
        }
        if let refusal {
            throw ChatHTTPError(.forbidden, refusal, headers: [
                .wwwAuthenticate: BearerCredential.challenge(realm: Self.realm, error: "insufficient_scope", description: refusal,
                                                             scope: "moderate"),
            ])
        }
        return claims
    }

    /// `GET /rooms/{id}` and its messages: open, unless `auth.jwt.required` (then a JWT granting `chat` in the room).
    func read(_ request: Request, room: String) throws {
        guard let verifier, jwtRequired else { return }
        guard let header = request.headers[.authorization] else {
            throw ChatHTTPError(.unauthorized, "needs Authorization: Bearer <access token> (auth.jwt.required)",
                                headers: [.wwwAuthenticate: BearerCredential.challenge(realm: Self.realm)])
        }
        guard let token = BearerCredential.token(fromAuthorization: header) else {
            throw Self.invalidToken("the Authorization header must use the Bearer scheme")
        }
        _ = try httpClaims(verifier, token, room: room)
    }

    private func httpClaims(_ verifier: TokenVerifier, _ token: String, room: String) throws -> AccessClaims {
        switch claims(verifier, token, room: room) {
        case .success(let claims): return claims
        case .failure(let refusal) where refusal.code == .forbidden:
            throw ChatHTTPError(.forbidden, refusal.message, headers: [
                .wwwAuthenticate: BearerCredential.challenge(realm: Self.realm, error: "insufficient_scope", description: refusal.message,
                                                             scope: "chat"),
            ])
        case .failure(let refusal):
            throw Self.invalidToken(refusal.message)
        }
    }

    /// 401 with RFC 6750 §3.1 `invalid_token` and the reason.
    static func invalidToken(_ reason: String) -> ChatHTTPError {
        ChatHTTPError(.unauthorized, reason, headers: [
            .wwwAuthenticate: BearerCredential.challenge(realm: realm, error: "invalid_token", description: reason),
        ])
    }
}
