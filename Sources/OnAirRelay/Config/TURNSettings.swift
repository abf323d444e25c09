import OnAirDecoding

/// A TURN server that shares a secret with the relay: the `turn:` section of `relay.yaml`
/// (config/relay.yaml documents each key; `ONAIR_TURN_URLS`, `ONAIR_TURN_SECRET` and
/// `ONAIR_TURN_TTL` override them). The relay mints ephemeral credentials for it per request
/// (``TURNCredentials``, the TURN REST API of draft-uberti-behave-turn-rest-00; coturn's
/// `use-auth-secret` + `static-auth-secret`) and advertises them as `Link: rel="ice-server"`
/// (RFC 9725 §4.6). Off while ``urls`` is empty.
public struct TURNSettings: Sendable, Equatable {
    /// `turn:` / `turns:` URIs (RFC 7065 §3) of the server(s) that know ``secret``.
    public var urls: [String] = []
    /// coturn's `static-auth-secret`: the HMAC key of every password.
    public var secret: String? = nil
    /// How long a minted credential is good for, in seconds (the draft's `ttl`, §2.2).
    public var ttlSeconds = 3600

    /// The shortest and longest ``ttlSeconds`` taken: a credential must outlive ICE and the
    /// first allocation refreshes, and should not live on for weeks after it leaked.
    public static let ttlRange = 60...604_800

    public init() {}

    /// Whether the relay hands out TURN credentials.
    public var enabled: Bool { !urls.isEmpty }

    /// The problems with these settings, worded for the person editing relay.yaml.
    public func problems() -> [String] {
        var problems: [String] = []
        for url in urls where !Self.isTURNURI(url) {
            problems.append("turn.urls: '\(url)' must be a turn: or turns: URI (RFC 7065), e.g. turn:turn.example.org:3478?transport=udp")
        }
        switch (urls.isEmpty, secret) {
        case (false, nil):
            problems.append("turn.secret (ONAIR_TURN_SECRET) is required with turn.urls: coturn's static-auth-secret, "
                                + "from which every credential is derived")
        case (_, let secret?) where secret.isEmpty:
            problems.append("turn.secret must not be empty (leave the turn section out to hand out no TURN server)")
        case (true, .some):
            problems.append("turn.secret is set but turn.urls (ONAIR_TURN_URLS) is empty: list the TURN server's turn:/turns: URIs")
        default:
            break
        }
        if !Self.ttlRange.contains(ttlSeconds) {
            problems.append("turn.ttl_seconds \(ttlSeconds) must be \(Self.ttlRange.lowerBound) to \(Self.ttlRange.upperBound) "
                                + "(a credential's lifetime in seconds; default 3600)")
        }
        return problems
    }

    /// RFC 7065 §3.1: `turn:` / `turns:` host [":" port] [ "?transport=" ...], with nothing
    /// that would end the `<...>` of a Link header (RFC 8288 §3) or split a comma list.
    static func isTURNURI(_ url: String) -> Bool {
        let parts = url.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, ["turn", "turns"].contains(parts[0]) else { return false }
        let host = parts[1].prefix { $0 != ":" && $0 != "?" }
        return !host.isEmpty && !url.contains { $0.isWhitespace || "<>\",;".contains($0) }
    }
}

extension TURNSettings: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case urls, secret, ttlSeconds = "ttl_seconds" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
        urls = try c.value(.urls, default: urls)
        secret = try c.value(.secret, default: secret)
        ttlSeconds = try c.value(.ttlSeconds, default: ttlSeconds)
    }
}
