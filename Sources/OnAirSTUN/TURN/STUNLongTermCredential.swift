import OnAirCrypto

/// RFC 8489 §9.2 long-term credentials, as a TURN server asks for them (RFC 8656 §5): the
/// username and password we were given, the realm and nonce the server's 401 told us. Requests
/// carry USERNAME, REALM, NONCE and MESSAGE-INTEGRITY keyed with ``key``.
public struct STUNLongTermCredential: Sendable, Equatable {
    public let username: String
    public let realm: String
    public var nonce: String
    /// RFC 8489 §9.2.2: MD5(username ":" OpaqueString(realm) ":" OpaqueString(password)),
    /// the 16 bytes MESSAGE-INTEGRITY (HMAC-SHA1) is keyed with. The OpaqueString profile
    /// (RFC 8265) changes nothing for the ASCII passwords of the TURN REST API; other text is
    /// used as given.
    public let key: [UInt8]

    public init(username: String, password: String, realm: String, nonce: String) {
        self.username = username
        self.realm = realm
        self.nonce = nonce
        key = Self.key(username: username, realm: realm, password: password)
    }

    public static func key(username: String, realm: String, password: String) -> [UInt8] {
        Digest.md5(Array("\(username):\(realm):\(password)".utf8))
    }

    /// The attributes that authenticate a request (§9.2.4); MESSAGE-INTEGRITY is added by
    /// ``STUNMessage/encode(integrityKey:fingerprint:paddingByte:)`` with ``key``.
    public var attributes: [STUNAttribute] { [.username(username), .realm(realm), .nonce(nonce)] }
}
