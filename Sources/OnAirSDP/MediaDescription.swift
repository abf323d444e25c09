/// RFC 8866 §5.14 media description: the `m=` line and the `i=`, `c=`, `b=`, `k=` and `a=`
/// lines under it.
///
/// `m=<media> <port>[/<number of ports>] <proto> <fmt> ...`
public struct MediaDescription: Sendable, Equatable, SDPAttributeHolder {
    public var kind: MediaKind
    /// 0 marks a rejected or disabled m= line (RFC 3264 §6); 9 is the JSEP placeholder.
    public var port: UInt16
    public var portCount: UInt16?
    /// "UDP/TLS/RTP/SAVPF" for WebRTC media, "UDP/DTLS/SCTP" for data channels.
    public var proto: String
    /// Payload types for RTP profiles, other format tokens otherwise, in preference order.
    public var formats: [String]
    public var information: String?
    public var connection: SDPConnection?
    public var bandwidths: [SDPBandwidth]
    public var encryptionKey: String?
    public var attributes: [SDPAttribute]

    public init(kind: MediaKind, port: UInt16 = 9, portCount: UInt16? = nil, proto: String = "UDP/TLS/RTP/SAVPF",
                formats: [String], information: String? = nil, connection: SDPConnection? = nil,
                bandwidths: [SDPBandwidth] = [], encryptionKey: String? = nil, attributes: [SDPAttribute] = []) {
        self.kind = kind
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.information = information
        self.connection = connection
        self.bandwidths = bandwidths
        self.encryptionKey = encryptionKey
        self.attributes = attributes
    }

    /// Parses the text after "m=".
    init(parsingMediaLine text: Substring) throws(SDPError) {
        let parts = SDPText.fields(text)
        guard parts.count >= 3 else {
            throw SDPError("m= needs <media> <port> <proto> <fmt> ..., found \(parts.count) fields")
        }
        guard SDPText.isToken(parts[0]) else { throw SDPError("m= media \"\(parts[0])\" is not a token") }
        let (portText, countText) = SDPText.splitOnce(parts[1], at: UInt8(ascii: "/"))
        guard let port = SDPText.decimal(portText, as: UInt16.self) else {
            throw SDPError("m= port \"\(parts[1])\" is not a number 0-65535")
        }
        var portCount: UInt16? = nil
        if let countText {
            guard let count = SDPText.decimal(countText, as: UInt16.self) else {
                throw SDPError("m= number of ports \"\(countText)\" is not a number")
            }
            portCount = count
        }
        guard SDPText.isWord(parts[2]) else { throw SDPError("m= proto is missing") }
        self.init(kind: MediaKind(String(parts[0])), port: port, portCount: portCount, proto: String(parts[2]),
                  formats: parts.dropFirst(3).map(String.init))
    }

    /// The text after "m=".
    var mediaLineValue: String {
        var text = kind.rawValue + " " + String(port)
        if let portCount { text += "/" + String(portCount) }
        text += " " + proto
        for format in formats { text += " " + format }
        return text
    }

    /// True for RTP profiles ("RTP/AVP", "UDP/TLS/RTP/SAVPF", ...): formats are payload types.
    public var isRTP: Bool {
        proto.split(separator: "/").contains("RTP")
    }

    /// RFC 3264 §6: port 0 rejects the m= line (unless BUNDLE-only, RFC 9143 §6).
    public var isRejected: Bool { port == 0 && !hasAttribute("bundle-only") }

    /// `a=rtcp-mux` (RFC 5761 §5.1.3), required by JSEP.
    public var rtcpMux: Bool { hasAttribute("rtcp-mux") }
    /// `a=rtcp-rsize` (RFC 5506 §5).
    public var rtcpReducedSize: Bool { hasAttribute("rtcp-rsize") }

    /// The m= line's lines in RFC 8866 §5 order, without line terminators.
    func lines() -> [String] {
        var out = ["m=" + mediaLineValue]
        if let information { out.append("i=" + information) }
        if let connection { out.append("c=" + connection.lineValue) }
        for bandwidth in bandwidths { out.append("b=" + bandwidth.lineValue) }
        if let encryptionKey { out.append("k=" + encryptionKey) }
        for attribute in attributes { out.append("a=" + attribute.lineValue) }
        return out
    }
}
