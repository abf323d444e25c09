import HTTPTypes
import Hummingbird
import OnAirAuth
import OnAirTokenFormat

/// Who may do what on the relay, decided in one place for WHIP, WHEP, their sessions and the
/// admin API. A request's `Authorization: Bearer` token (RFC 6750 §2.1) is either a static
/// token of config/relay.yaml (`auth.publish_token`, `viewer_token`, `admin_token`, a room's
/// own) or an access token (JWT, issue 28) whose grants and room must fit the request.
///
/// Answers: 401 with `WWW-Authenticate: Bearer error="invalid_token", error_description=...`
/// for a missing, wrong or refused token (RFC 6750 §3.1), 403 with `error="insufficient_scope"`
/// for a valid JWT without the grant or for another room. Checked before any body is read.
struct RelayAccess: Sendable {
    /// What a request wants to do.
    enum Right: Sendable, Equatable {
        /// WHIP, and PATCH/DELETE of a publisher's session: `publish` in the room.
        case publish(room: String)
        /// WHEP, PATCH/DELETE/layer of a viewer's session: `view` in the room.
        case view(room: String)
        /// The management API: `admin`, any room.
        case admin

        var grant: Grant {
            switch self {
            case .publish: return .publish
            case .view: return .view
            case .admin: return .admin
            }
        }

        var room: String? {
            switch self {
            case .publish(let room), .view(let room): return room
            case .admin: return nil
            }
        }

        var what: String {
            switch self {
            case .publish(let room): return "publishing to room \(room)"
            case .view(let room): return "viewing room \(room)"
            case .admin: return "the admin API"
            }
        }
    }

    let config: RelayConfig
    /// nil when `auth.jwt` sets no key: JWTs are not taken.
    let verifier: TokenVerifier?

    static let realm = "onair"

    /// The static token for `right`, or nil when none is configured.
    func staticToken(for right: Right) -> String? {
        switch right {
        case .publish(let room): return config.publishToken(for: room)
        case .view(let room): return config.viewerToken(for: room)
        case .admin: return config.auth.adminToken.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Returns the token's claims when a JWT allowed the request, nil when a static token did
    /// or the right is open; throws the 401/403 answer otherwise.
    @discardableResult
    func require(_ right: Right, _ request: Request) throws -> AccessClaims? {
        let expected = staticToken(for: right)
        let jwtRequired = verifier != nil && config.auth.jwt.required
        if right == .admin && expected == nil && verifier == nil {
            throw RelayHTTPError(.forbidden, "the admin API is off: set auth.admin_token (or ONAIR_ADMIN_TOKEN) or auth.jwt")
        }
        guard let header = request.headers[.authorization] else {
            guard expected != nil || jwtRequired || right == .admin else { return nil }  // open
            throw RelayHTTPError(.unauthorized, "\(right.what) needs a Bearer token (Authorization: Bearer <token>)",
                                 headers: [.wwwAuthenticate: BearerCredential.challenge(realm: Self.realm)])
        }
        guard let token = BearerCredential.token(fromAuthorization: header) else {
            throw Self.invalidToken("the Authorization header must use the Bearer scheme")
        }
        if let expected, !jwtRequired, BearerCredential.constantTimeEqual(token, expected) { return nil }
        guard let verifier, TokenVerifier.looksLikeJWT(token) else {
            if expected == nil && !jwtRequired && right != .admin { return nil }  // open: a token is not needed
            throw Self.invalidToken(jwtRequired ? "\(right.what) needs an access token (JWT); static tokens are off (auth.jwt.required)"
                                                : "wrong token for \(right.what)")
        }
        let claims: AccessClaims
        do {
            claims = try verifier.verify(token)
        } catch {
            throw Self.invalidToken(error.description)
        }
        guard claims.grants.contains(right.grant) else {
            let held = claims.grants.map(\.rawValue).sorted().joined(separator: ",")
            throw Self.insufficientScope("the token does not grant \(right.grant.rawValue) (it grants \(held.isEmpty ? "nothing" : held))",
                                         scope: right.grant.rawValue)
        }
        if let room = right.room, !(claims.room?.matches(room) ?? false) {
            throw Self.insufficientScope("the token is for room \(claims.room?.description ?? "(none)"), not room \(room)",
                                         scope: right.grant.rawValue)
        }
        return claims
    }

    /// 401, RFC 6750 §3.1 `invalid_token`, the reason in `error_description` and the body.
    static func invalidToken(_ reason: String) -> RelayHTTPError {
        RelayHTTPError(.unauthorized, reason, headers: [
            .wwwAuthenticate: BearerCredential.challenge(realm: realm, error: "invalid_token", description: reason),
        ])
    }

    /// 403, RFC 6750 §3.1 `insufficient_scope`.
    static func insufficientScope(_ reason: String, scope: String) -> RelayHTTPError {
        RelayHTTPError(.forbidden, reason, headers: [
            .wwwAuthenticate: BearerCredential.challenge(realm: realm, error: "insufficient_scope", description: reason, scope: scope),
        ])
    }
}
