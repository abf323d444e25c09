import Foundation
import OnAirCrypto

/// Ephemeral TURN credentials of the TURN REST API (draft-uberti-behave-turn-rest-00 §2.2),
/// as coturn checks them with `use-auth-secret` + `static-auth-secret`: the username is
/// `<expiry>:<user>` (expiry in Unix seconds; the server refuses it once passed, §4.2), the
/// password base64(HMAC-SHA1(secret, username)). Nothing is stored: the TURN server
/// recomputes the password from the username, so any relay that knows the secret can mint.
public struct TURNCredentials: Sendable, Equatable {
    public let username: String
    public let password: String

    /// Credentials for `user` (the relay's: the request's room) that expire at `expiry`
    /// (Unix seconds).
    public init(secret: String, user: String, expiry: Int) {
        username = "\(expiry):\(user)"
        password = Self.password(secret: secret, username: username)
    }

    /// Credentials for `user` good for `ttlSeconds` from `now`.
    public init(secret: String, user: String, ttlSeconds: Int, now: Date) {
        self.init(secret: secret, user: user, expiry: Int(now.timeIntervalSince1970.rounded(.down)) + ttlSeconds)
    }

    /// The Unix second the username says it expires at.
    public var expiry: Int? { username.split(separator: ":", maxSplits: 1).first.flatMap { Int($0) } }

    /// §2.2: base64(HMAC-SHA1(secret, username)); the secret's UTF-8 bytes are the key, as
    /// coturn takes its `static-auth-secret`.
    static func password(secret: String, username: String) -> String {
        Data(HMAC.sha1(key: Array(secret.utf8), data: Array(username.utf8))).base64EncodedString()
    }
}
