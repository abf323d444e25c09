/// RFC 8840 §4.4 `application/trickle-ice-sdpfrag` body, as WHIP (RFC 9725 §4.3) and WHEP use
/// it in PATCH requests for trickle ICE and ICE restarts: optional session-level attributes
/// (ice-options, group, ice-ufrag/ice-pwd), then per-m= line sections with a=mid, credentials,
/// candidates and a=end-of-candidates.
public struct SDPFragment: Sendable, Equatable, SDPAttributeHolder {
    /// Session-level attributes (before the first m= line).
    public var attributes: [SDPAttribute]
    /// The m= sections; only their a=mid, credentials and candidates carry meaning.
    public var media: [MediaDescription]

    public init(attributes: [SDPAttribute] = [], media: [MediaDescription] = []) {
        self.attributes = attributes
        self.media = media
    }

    /// A fragment with credentials at session level and one m= section per mid, as WHIP clients
    /// send it: `m=<kind> 9 UDP/TLS/RTP/SAVPF 0`, `a=mid`, candidates, optional end-of-candidates.
    public init(iceUfrag: String?, icePassword: String?, candidates: [(mid: String, kind: MediaKind, candidates: [ICECandidate])],
                endOfCandidates: Bool = false) {
        var attributes: [SDPAttribute] = []
        if let iceUfrag { attributes.append(SDPAttribute("ice-ufrag", iceUfrag)) }
        if let icePassword { attributes.append(SDPAttribute("ice-pwd", icePassword)) }
        var media: [MediaDescription] = []
        for entry in candidates {
            var section = MediaDescription(kind: entry.kind, formats: ["0"])
            section.append("mid", entry.mid)
            for candidate in entry.candidates { section.append(candidate) }
            if endOfCandidates { section.append("end-of-candidates") }
            media.append(section)
        }
        self.init(attributes: attributes, media: media)
    }

    /// Refuse fragments larger than this; a fragment holds a handful of candidates.
    public static let maximumLength = 64 * 1024

    /// Parses a fragment: only `a=` and `m=` lines (RFC 8840 §4.4); LF or CRLF line ends.
    public static func parse(_ text: String) throws(SDPError) -> SDPFragment {
        guard text.utf8.count <= maximumLength else {
            throw SDPError("SDP fragment is \(text.utf8.count) bytes, more than \(maximumLength)")
        }
        var lines = SDPLineReader(text)
        var fragment = SDPFragment()
        while let line = try lines.next() {
            do throws(SDPError) {
                switch line.type {
                case "m":
                    fragment.media.append(try MediaDescription(parsingMediaLine: line.value))
                case "a" where fragment.media.isEmpty:
                    let attribute = try SDPAttribute(parsing: line.value)
                    try SDPAttributeValidator.validate(attribute, isRTP: false)
                    fragment.attributes.append(attribute)
                case "a":
                    try fragment.media[fragment.media.count - 1].apply(line)
                default:
                    throw SDPError("an SDP fragment holds only a= and m= lines, not \(line.type)= (RFC 8840 §4.4)")
                }
            } catch {
                throw error.located(at: line.number)
            }
        }
        return fragment
    }

    /// The fragment text with CRLF line ends.
    public func serialize() -> String {
        var out = attributes.map { "a=" + $0.lineValue }
        for section in media { out += section.lines() }
        return out.isEmpty ? "" : out.joined(separator: "\r\n") + "\r\n"
    }

    /// The section's ice-ufrag, else the session-level one.
    public func iceUfrag(for section: MediaDescription) -> String? { section.iceUfrag ?? iceUfrag }
    public func icePassword(for section: MediaDescription) -> String? { section.icePassword ?? icePassword }

    /// The credentials the fragment announces (first section's, else session level); a
    /// different ufrag from the current one means an ICE restart (RFC 8839 §4.4.1.1.1).
    public var announcedUfrag: String? { iceUfrag ?? media.lazy.compactMap(\.iceUfrag).first }
    public var announcedPassword: String? { icePassword ?? media.lazy.compactMap(\.icePassword).first }

    /// Candidates of the section whose a=mid is `mid`.
    public func candidates(forMid mid: String) -> [ICECandidate] {
        media.filter { $0.mid == mid }.flatMap(\.candidates)
    }

    /// All candidates with the mid of their section, in order.
    public var allCandidates: [(mid: String?, candidate: ICECandidate)] {
        media.flatMap { section in section.candidates.map { (section.mid, $0) } }
    }

    /// `a=end-of-candidates` at session level or in any section.
    public var isEndOfCandidates: Bool {
        endOfCandidates || media.contains { $0.endOfCandidates }
    }
}
