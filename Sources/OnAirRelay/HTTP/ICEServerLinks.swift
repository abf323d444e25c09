import Foundation

/// The `Link: <uri>; rel="ice-server"` fields (RFC 9725 §4.6, RFC 8288 §3) that WHIP/WHEP
/// endpoints answer `POST` and `OPTIONS` with: the configured `ice_servers` as written, and
/// for the `turn:` section one link per URI with credentials minted for the request's room at
/// that moment (``TURNCredentials``), so every client gets its own, good for `turn.ttl_seconds`.
struct ICEServerLinks: Sendable {
    /// The `ice_servers` links, the same for every request.
    let fixed: [String]
    let turn: TURNSettings

    init(config: RelayConfig) {
        fixed = config.iceServers.map { Self.link(url: $0.url, username: $0.username, credential: $0.credential) }
        turn = config.turn
    }

    /// The links for a request on `room` at `now`; without a room (a path that names none)
    /// only the fixed ones: credentials are minted for rooms only.
    func links(room: String?, now: Date = Date()) -> [String] {
        guard turn.enabled, let secret = turn.secret, let room else { return fixed }
        let credentials = TURNCredentials(secret: secret, user: room, ttlSeconds: turn.ttlSeconds, now: now)
        return fixed + turn.urls.map { Self.link(url: $0, username: credentials.username, credential: credentials.password) }
    }

    /// RFC 9725 §4.6 / RFC 8288 §3: `<stun:host:port>; rel="ice-server"`, with TURN
    /// credentials as the `username` and `credential` link parameters (quoted strings).
    static func link(url: String, username: String?, credential: String?) -> String {
        var link = "<\(url)>; rel=\"ice-server\""
        if let username { link += "; username=\"\(quoted(username))\"" }
        if let credential { link += "; credential=\"\(quoted(credential))\"; credential-type=\"password\"" }
        return link
    }

    /// RFC 9110 §5.6.4: inside a quoted-string, `"` and `\` are escaped with `\`.
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
