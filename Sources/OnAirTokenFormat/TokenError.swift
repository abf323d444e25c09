/// Why a token was refused. Each case's ``description`` is what an RFC 6750 §3
/// `error_description` (and the chat's error frame) says to the client.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three base64url parts of JSON (RFC 7515 §7.1), or a claim of the wrong type.
    case malformed(String)
    /// `alg` is `none`, is not one this server takes, or is not the algorithm of the key
    /// the token names (RFC 8725 §2.1, §3.1: algorithm confusion).
    case algorithmNotAllowed(String)
    /// `kid` names no key this server has (RFC 7515 §4.1.4).
    case unknownKeyID(String)
    /// The signature does not verify (RFC 7515 §5.2).
    case badSignature
    /// No `exp` claim: tokens here must end (RFC 7519 §4.1.4 made mandatory).
    case missingExpiry
    /// `exp` is past, with the leeway (RFC 7519 §4.1.4).
    case expired
    /// `nbf` (or `iat`) is still ahead, with the leeway (RFC 7519 §4.1.5, §4.1.6).
    case notYetValid
    /// `aud` does not name this server's audience (RFC 7519 §4.1.3).
    case wrongAudience
    /// `iss` is not this server's issuer (RFC 7519 §4.1.1).
    case wrongIssuer
    /// No key is configured at all (a JWKS URL not fetched yet).
    case noKeys

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed token: \(why)"
        case .algorithmNotAllowed(let why): return "alg not allowed: \(why)"
        case .unknownKeyID(let kid): return "unknown key id '\(kid)'"
        case .badSignature: return "bad signature"
        case .missingExpiry: return "token has no exp claim"
        case .expired: return "token expired"
        case .notYetValid: return "token not yet valid (nbf/iat in the future)"
        case .wrongAudience: return "wrong audience (aud)"
        case .wrongIssuer: return "wrong issuer (iss)"
        case .noKeys: return "no verification key loaded yet"
        }
    }

    /// A short machine-readable name: `expired`, `bad_signature`, ... (the chat's error code detail).
    public var code: String {
        switch self {
        case .malformed: return "malformed"
        case .algorithmNotAllowed: return "alg_not_allowed"
        case .unknownKeyID: return "unknown_kid"
        case .badSignature: return "bad_signature"
        case .missingExpiry: return "missing_exp"
        case .expired: return "expired"
        case .notYetValid: return "not_yet_valid"
        case .wrongAudience: return "wrong_audience"
        case .wrongIssuer: return "wrong_issuer"
        case .noKeys: return "no_keys"
        }
    }
}
