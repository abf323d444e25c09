import OnAirDecoding

/// `auth.jwt` in config/relay.yaml and config/chat.yaml: where the keys come from and what
/// the claims must say. With none of `secret`, `jwks_file`, `jwks_url` set, JWTs are off.
public struct JWTSettings: Codable, Sendable, Equatable {
    /// HS256 shared secret (RFC 7518 §3.2: at least 32 bytes, the size of the hash).
    public var secret: String? = nil
    /// A JWKS file (RFC 7517 §5) of public keys: EC P-256 (ES256), RSA (RS256), OKP Ed25519 (EdDSA).
    public var jwksFile: String? = nil
    /// A JWKS URL, fetched at start and then every ``jwksRefreshSeconds`` in the background.
    public var jwksURL: String? = nil
    /// Seconds between two fetches of ``jwksURL`` (an unknown `kid` asks for one sooner).
    public var jwksRefreshSeconds: Double = 300
    /// When set, `aud` must name it (RFC 7519 §4.1.3).
    public var audience: String? = nil
    /// When set, `iss` must equal it (RFC 7519 §4.1.1).
    public var issuer: String? = nil
    /// Clock skew allowed on `exp`, `nbf` and `iat` (RFC 7519 §4.1.4: "some small leeway").
    public var leewaySeconds: Double = 30
    /// When true, every request needs a valid JWT: static tokens are no longer taken.
    public var required: Bool = false

    public init() {}

    /// Whether any key source is configured (JWTs are accepted at all).
    public var isEnabled: Bool { secret != nil || jwksFile != nil || jwksURL != nil }

    /// What is wrong with the settings, worded for the person fixing the config (`prefix`: the section's name).
    public func problems(prefix: String = "auth.jwt") -> [String] {
        var found: [String] = []
        if let secret, secret.utf8.count < 32 {
            found.append("\(prefix).secret must be at least 32 bytes (RFC 7518 §3.2: as long as the HS256 hash); got \(secret.utf8.count)")
        }
        if let url = jwksURL, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            found.append("\(prefix).jwks_url must be an http:// or https:// URL (got \(url))")
        }
        if required && !isEnabled {
            found.append("\(prefix).required is true but no key is set: give secret, jwks_file or jwks_url")
        }
        if !(leewaySeconds >= 0 && leewaySeconds <= 3600) { found.append("\(prefix).leeway_seconds must be 0...3600") }
        if !(jwksRefreshSeconds >= 1) { found.append("\(prefix).jwks_refresh_seconds must be at least 1") }
        return found
    }

    /// Environment overrides with a prefix: `ONAIR_JWT_` (relay) or `ONAIR_CHAT_JWT_` (chat):
    /// SECRET, REQUIRED, JWKS_FILE, JWKS_URL, AUDIENCE, ISSUER (an empty value unsets).
    public mutating func apply(environment env: [String: String], prefix: String) throws(SettingProblem) {
        func text(_ name: String) -> String?? {
            guard let raw = env[prefix + name] else { return nil }
            return .some(raw.isEmpty ? nil : raw)
        }
        if let v = text("SECRET") { secret = v }
        if let v = text("JWKS_FILE") { jwksFile = v }
        if let v = text("JWKS_URL") { jwksURL = v }
        if let v = text("AUDIENCE") { audience = v }
        if let v = text("ISSUER") { issuer = v }
        if let raw = env[prefix + "REQUIRED"] {
            switch raw.lowercased() {
            case "1", "true", "yes", "on": required = true
            case "0", "false", "no", "off", "": required = false
            default: throw SettingProblem(description: "\(prefix)REQUIRED=\(raw) is not true or false")
            }
        }
    }

    /// An environment value that cannot be used.
    public struct SettingProblem: Error, CustomStringConvertible {
        public let description: String
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case secret, jwksFile = "jwks_file", jwksURL = "jwks_url", jwksRefreshSeconds = "jwks_refresh_seconds"
        case audience, issuer, leewaySeconds = "leeway_seconds", required
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
        secret = try c.value(.secret, default: secret)
        jwksFile = try c.value(.jwksFile, default: jwksFile)
        jwksURL = try c.value(.jwksURL, default: jwksURL)
        jwksRefreshSeconds = try c.value(.jwksRefreshSeconds, default: jwksRefreshSeconds)
        audience = try c.value(.audience, default: audience)
        issuer = try c.value(.issuer, default: issuer)
        leewaySeconds = try c.value(.leewaySeconds, default: leewaySeconds)
        required = try c.value(.required, default: required)
    }
}
