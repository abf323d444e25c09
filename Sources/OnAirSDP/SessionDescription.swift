/// RFC 8866 session description: the session-level lines, then the media descriptions.
///
/// Parsing keeps every attribute in order and as written, so `parse(serialize())` is the
/// identity; typed accessors (here, in `SDPAttributeHolder` and in `MediaDescription`) read them.
public struct SessionDescription: Sendable, Equatable, SDPAttributeHolder {
    /// RFC 8866 §5.1 `v=`: always 0.
    public var version: Int
    /// RFC 8866 §5.2 `o=`.
    public var origin: SDPOrigin
    /// RFC 8866 §5.3 `s=`: "-" in WebRTC.
    public var sessionName: String
    /// §5.4 `i=`, §5.5 `u=`, §5.6 `e=` and `p=`.
    public var information: String?
    public var uri: String?
    public var emails: [String]
    public var phones: [String]
    /// RFC 8866 §5.7 session-level `c=` (the default for media without one).
    public var connection: SDPConnection?
    public var bandwidths: [SDPBandwidth]
    /// RFC 8866 §5.9 `t=` lines; WebRTC writes one `t=0 0`.
    public var timing: [SDPTiming]
    /// RFC 8866 §5.11 `z=`, and the obsolete §5.12 `k=`, as written.
    public var timeZones: String?
    public var encryptionKey: String?
    /// Session-level `a=` lines: group:BUNDLE, ice-lite, msid-semantic, and defaults for media.
    public var attributes: [SDPAttribute]
    public var media: [MediaDescription]

    public init(version: Int = 0, origin: SDPOrigin, sessionName: String = "-", information: String? = nil,
                uri: String? = nil, emails: [String] = [], phones: [String] = [], connection: SDPConnection? = nil,
                bandwidths: [SDPBandwidth] = [], timing: [SDPTiming] = [SDPTiming()], timeZones: String? = nil,
                encryptionKey: String? = nil, attributes: [SDPAttribute] = [], media: [MediaDescription] = []) {
        self.version = version
        self.origin = origin
        self.sessionName = sessionName
        self.information = information
        self.uri = uri
        self.emails = emails
        self.phones = phones
        self.connection = connection
        self.bandwidths = bandwidths
        self.timing = timing
        self.timeZones = timeZones
        self.encryptionKey = encryptionKey
        self.attributes = attributes
        self.media = media
    }

    /// The text with CRLF line endings (RFC 8866 §5) and a final CRLF.
    public func serialize() -> String {
        var out = ["v=\(version)", "o=" + origin.lineValue, "s=" + sessionName]
        if let information { out.append("i=" + information) }
        if let uri { out.append("u=" + uri) }
        out += emails.map { "e=" + $0 }
        out += phones.map { "p=" + $0 }
        if let connection { out.append("c=" + connection.lineValue) }
        out += bandwidths.map { "b=" + $0.lineValue }
        for time in timing {
            out.append("t=" + time.lineValue)
            out += time.repeats.map { "r=" + $0 }
        }
        if let timeZones { out.append("z=" + timeZones) }
        if let encryptionKey { out.append("k=" + encryptionKey) }
        out += attributes.map { "a=" + $0.lineValue }
        for section in media { out += section.lines() }
        return out.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: Session-level defaults (RFC 8839 §5.4, RFC 8122 §5, RFC 4145 §4, RFC 3264 §5.1)

    /// The m= line's ice-ufrag, else the session-level one.
    public func iceUfrag(for media: MediaDescription) -> String? { media.iceUfrag ?? iceUfrag }
    public func icePassword(for media: MediaDescription) -> String? { media.icePassword ?? icePassword }
    public func fingerprints(for media: MediaDescription) -> [DTLSFingerprint] {
        let own = media.fingerprints
        return own.isEmpty ? fingerprints : own
    }
    public func setup(for media: MediaDescription) -> DTLSSetup? { media.setup ?? setup }
    public func iceOptions(for media: MediaDescription) -> [String] {
        let own = media.iceOptions
        return own.isEmpty ? iceOptions : own
    }
    /// The m= line's direction, else the session's, else sendrecv (RFC 3264 §5.1).
    public func direction(for media: MediaDescription) -> MediaDirection {
        media.direction ?? direction ?? .sendrecv
    }
    public func connection(for media: MediaDescription) -> SDPConnection? { media.connection ?? connection }

    /// The media description whose `a=mid` is `mid`.
    public func media(withMid mid: String) -> MediaDescription? {
        media.first { $0.mid == mid }
    }
}
