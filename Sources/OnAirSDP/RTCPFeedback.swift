/// RFC 4585 §4.2 `a=rtcp-fb:<payload type or *> <type> [<parameters>]`, e.g. "96 nack pli",
/// "* transport-cc", "102 ccm fir".
public struct RTCPFeedback: SDPAttributeValue, Hashable {
    public static let attributeName = "rtcp-fb"

    /// The payload type, or nil for "*" (all formats of the m= line).
    public var payloadType: UInt8?
    /// The feedback type ("nack", "ccm", "transport-cc", "goog-remb", ...).
    public var type: String
    /// The rest of the line ("pli", "fir"), or nil.
    public var parameter: String?

    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    /// Parses the "type [parameter]" text used by `NegotiatedCodec.rtcpFeedback` ("nack pli").
    public init(payloadType: UInt8?, feedback: String) {
        let (type, parameter) = SDPText.splitOnce(feedback[...], at: UInt8(ascii: " "))
        self.init(payloadType: payloadType, type: String(type), parameter: parameter.map(String.init))
    }

    public init(attributeValue: String) throws(SDPError) {
        let (head, rest) = SDPText.splitOnce(attributeValue[...], at: UInt8(ascii: " "))
        let payloadType: UInt8? = head == "*" ? nil : try SDPText.payloadType(head, in: "a=rtcp-fb")
        guard let rest else { throw SDPError("a=rtcp-fb needs a feedback type after the payload type") }
        let (type, parameter) = SDPText.splitOnce(SDPText.trimmed(rest), at: UInt8(ascii: " "))
        guard SDPText.isToken(type) else {
            throw SDPError("a=rtcp-fb feedback type \"\(type)\" is not a token")
        }
        self.init(payloadType: payloadType, type: String(type), parameter: parameter.map { String(SDPText.trimmed($0)) })
    }

    /// "type" or "type parameter", the form kept in `NegotiatedCodec.rtcpFeedback`.
    public var feedback: String {
        guard let parameter, !parameter.isEmpty else { return type }
        return type + " " + parameter
    }

    public var attributeValue: String {
        (payloadType.map { String($0) } ?? "*") + " " + feedback
    }
}
