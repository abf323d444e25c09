import Foundation

/// The claims of an OnAir access token (RFC 7519 §4): who (`sub`, `name`), where (`room`),
/// what (`grants`) and when (`exp` required, `nbf`, `iat`), for whom (`aud`, `iss`).
/// Other claims are ignored (RFC 7519 §4: claims not understood MUST be ignored).
public struct AccessClaims: Sendable, Equatable, Codable {
    /// The user id (RFC 7519 §4.1.2): a member's stable id in the chat.
    public var subject: String
    /// The display name the chat shows; nil = the subject.
    public var name: String?
    /// The room(s) the grants hold in; nil = none (an admin-only token).
    public var room: RoomPattern?
    /// What the holder may do; names this server does not know are dropped.
    public var grants: Set<Grant>
    /// NumericDate seconds (RFC 7519 §2): `exp` (required), `nbf`, `iat`.
    public var expiresAt: Double
    public var notBefore: Double?
    public var issuedAt: Double?
    /// `aud` (a string or an array of strings, RFC 7519 §4.1.3) as a list.
    public var audience: [String]
    public var issuer: String?

    public init(subject: String, name: String? = nil, room: RoomPattern?, grants: Set<Grant>, expiresAt: Double,
                notBefore: Double? = nil, issuedAt: Double? = nil, audience: [String] = [], issuer: String? = nil)
    {
        self.subject = subject
        self.name = name
        self.room = room
        self.grants = grants
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.audience = audience
        self.issuer = issuer
    }

    /// The claims of a token's payload (RFC 7519 §7.2 step 10: a JSON object), or why not.
    public static func decode(json payload: [UInt8]) throws(TokenError) -> AccessClaims {
        do {
            return try sharedDecoder.decode(AccessClaims.self, from: Data(payload))
        } catch let error as TokenError {
            throw error
        } catch {
            throw .malformed("the payload is not a JSON object of claims (RFC 7519 §7.2)")
        }
    }

    /// Whether the token grants `grant` in `room` (`room` nil: no room involved, the admin API).
    public func allows(_ grant: Grant, in room: String?) -> Bool {
        guard grants.contains(grant) else { return false }
        guard let room else { return true }
        return self.room?.matches(room) ?? false
    }

    /// The name to show: `name`, else `sub`.
    public var displayName: String { name.flatMap { $0.isEmpty ? nil : $0 } ?? subject }

    enum CodingKeys: String, CodingKey {
        case subject = "sub", name, room, grants, expiresAt = "exp", notBefore = "nbf", issuedAt = "iat"
        case audience = "aud", issuer = "iss"
    }

    /// Decoding names the claim that is wrong; `exp` missing is ``TokenError/missingExpiry``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // One lookup per claim (decodeIfPresent), on the request path.
        func claim<T: Decodable>(_ type: T.Type, _ key: CodingKeys, _ what: String) throws -> T? {
            do { return try c.decodeIfPresent(T.self, forKey: key) } catch { throw TokenError.malformed("\(key.rawValue) must be \(what)") }
        }
        guard let subject = try claim(String.self, .subject, "a string"), !subject.isEmpty else {
            throw TokenError.malformed("sub (the user id) is missing")
        }
        self.subject = subject
        name = try claim(String.self, .name, "a string")
        if let text = try claim(String.self, .room, "a string") {
            guard let pattern = RoomPattern(text) else {
                throw TokenError.malformed("room '\(text)' is not a room id, '*' or a prefix ending in '*'")
            }
            room = pattern
        }
        let names = try claim([String].self, .grants, "an array of strings") ?? []
        grants = Set(names.compactMap(Grant.init(rawValue:)))
        guard let exp = try claim(Double.self, .expiresAt, "a NumericDate (seconds)") else { throw TokenError.missingExpiry }
        expiresAt = exp
        notBefore = try claim(Double.self, .notBefore, "a NumericDate (seconds)")
        issuedAt = try claim(Double.self, .issuedAt, "a NumericDate (seconds)")
        do {
            audience = try c.decodeIfPresent(String.self, forKey: .audience).map { [$0] } ?? []
        } catch {
            audience = try claim([String].self, .audience, "a string or an array of strings") ?? []
        }
        issuer = try claim(String.self, .issuer, "a string")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(subject, forKey: .subject)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(room?.description, forKey: .room)
        try c.encode(Grant.allCases.filter { grants.contains($0) }.map(\.rawValue), forKey: .grants)
        // NumericDate as whole seconds when it fits an Int64 (RFC 7519 §2 allows fractions).
        func put(_ seconds: Double?, _ key: CodingKeys) throws {
            guard let seconds else { return }
            if let whole = Int64(exactly: seconds.rounded(.down)) { try c.encode(whole, forKey: key) } else { try c.encode(seconds, forKey: key) }
        }
        try put(expiresAt, .expiresAt)
        try put(notBefore, .notBefore)
        try put(issuedAt, .issuedAt)
        if audience.count == 1 { try c.encode(audience[0], forKey: .audience) } else if !audience.isEmpty { try c.encode(audience, forKey: .audience) }
        try c.encodeIfPresent(issuer, forKey: .issuer)
    }
}
