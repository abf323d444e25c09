/// RFC 8839 §5.1 candidate attribute:
/// `<foundation> <component-id> <transport> <priority> <connection-address> <port> typ <cand-type>
///  [raddr <addr>] [rport <port>] *(<extension-att-name> <extension-att-value>)`.
///
/// `tcptype` (RFC 6544 §4.5) and `generation` get typed fields; every other extension
/// ("ufrag", "network-id", "network-cost", ...) is kept in order in `extensions`.
public struct ICECandidate: SDPAttributeValue, Hashable, CustomStringConvertible {
    public static let attributeName = "candidate"

    /// An extension name/value pair that this type has no field for.
    public struct Extension: Sendable, Equatable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var foundation: String
    /// 1 for RTP; 2 for RTCP without rtcp-mux (RFC 8839 §5.1: 1...256).
    public var component: UInt16
    /// "udp" or "tcp" as written; compare case-insensitively.
    public var transport: String
    public var priority: UInt32
    /// An IPv4/IPv6 literal or an FQDN (mDNS ".local" names included).
    public var address: String
    public var port: UInt16
    public var type: ICECandidateType
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// RFC 6544 §4.5: "active", "passive" or "so".
    public var tcpType: String?
    public var generation: UInt32?
    public var extensions: [Extension]

    public init(foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32,
                address: String, port: UInt16, type: ICECandidateType = .host,
                relatedAddress: String? = nil, relatedPort: UInt16? = nil, tcpType: String? = nil,
                generation: UInt32? = nil, extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.tcpType = tcpType
        self.generation = generation
        self.extensions = extensions
    }

    /// Parses an attribute value, with or without the "candidate:" prefix that the W3C
    /// `RTCIceCandidate.candidate` string and trickle bodies carry.
    public init(attributeValue: String) throws(SDPError) {
        var text = attributeValue[...]
        if text.hasPrefix("candidate:") { text = text.dropFirst("candidate:".count) }
        let parts = SDPText.fields(text)
        guard parts.count >= 8 else {
            throw SDPError("a=candidate needs at least 8 fields (foundation component transport priority address port typ type), found \(parts.count)")
        }
        guard parts[0].utf8.count <= 32, Self.isICEChars(parts[0]) else {
            throw SDPError("a=candidate foundation \"\(parts[0])\" must be 1-32 ice-chars")
        }
        guard let component = SDPText.decimal(parts[1], as: UInt16.self), component >= 1, component <= 256 else {
            throw SDPError("a=candidate component \"\(parts[1])\" is not a number 1-256")
        }
        guard SDPText.isToken(parts[2]) else { throw SDPError("a=candidate transport \"\(parts[2])\" is not a token") }
        guard let priority = SDPText.decimal(parts[3], as: UInt32.self) else {
            throw SDPError("a=candidate priority \"\(parts[3])\" is not a 32-bit number")
        }
        guard SDPText.isWord(parts[4]) else { throw SDPError("a=candidate has an empty address") }
        guard let port = SDPText.decimal(parts[5], as: UInt16.self) else {
            throw SDPError("a=candidate port \"\(parts[5])\" is not a number 0-65535")
        }
        guard parts[6] == "typ", SDPText.isToken(parts[7]) else {
            throw SDPError("a=candidate needs \"typ <type>\" after the port")
        }
        self.init(foundation: String(parts[0]), component: component, transport: String(parts[2]),
                  priority: priority, address: String(parts[4]), port: port,
                  type: ICECandidateType(rawValue: String(parts[7])))
        try parseExtensions(parts[8...])
    }

    private mutating func parseExtensions(_ parts: ArraySlice<Substring>) throws(SDPError) {
        guard parts.count % 2 == 0 else {
            throw SDPError("a=candidate extension \"\(parts.last ?? "")\" has no value")
        }
        var index = parts.startIndex
        while index < parts.endIndex {
            let name = parts[index], value = parts[index + 1]
            index += 2
            switch name {
            case "raddr": relatedAddress = String(value)
            case "rport":
                guard let port = SDPText.decimal(value, as: UInt16.self) else {
                    throw SDPError("a=candidate rport \"\(value)\" is not a number 0-65535")
                }
                relatedPort = port
            case "tcptype": tcpType = String(value)
            case "generation":
                guard let number = SDPText.decimal(value, as: UInt32.self) else {
                    throw SDPError("a=candidate generation \"\(value)\" is not a number")
                }
                generation = number
            default:
                extensions.append(Extension(name: String(name), value: String(value)))
            }
        }
    }

    /// RFC 8839 §5.1 ice-char: ALPHA / DIGIT / "+" / "/".
    private static func isICEChars(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }

    public var attributeValue: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        if let tcpType { text += " tcptype \(tcpType)" }
        if let generation { text += " generation \(generation)" }
        for item in extensions { text += " \(item.name) \(item.value)" }
        return text
    }

    /// "candidate:..." as in `RTCIceCandidate.candidate`.
    public var description: String { "candidate:" + attributeValue }

    public var isUDP: Bool { SDPText.equalsIgnoringCase(transport, "udp") }
}
