/// RFC 8866 §6.6 `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]`.
public struct RTPMap: SDPAttributeValue {
    public static let attributeName = "rtpmap"

    /// RTP payload type, 0...127 (RFC 3550 §5.1).
    public var payloadType: UInt8
    /// Encoding name as written ("H264", "opus", "rtx"); compare case-insensitively.
    public var encodingName: String
    public var clockRate: UInt32
    /// Audio channel count (the encoding parameters); nil means one channel (RFC 8866 §6.6).
    public var channels: UInt16?

    public init(payloadType: UInt8, encodingName: String, clockRate: UInt32, channels: UInt16? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard parts.count == 2 else {
            throw SDPError("a=rtpmap must be <payload type> <encoding>/<clock rate>[/<channels>]")
        }
        let payloadType = try SDPText.payloadType(parts[0], in: "a=rtpmap")
        let encoding = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard encoding.count == 2 || encoding.count == 3, SDPText.isToken(encoding[0]) else {
            throw SDPError("a=rtpmap encoding \"\(parts[1])\" must be <name>/<clock rate>[/<channels>]")
        }
        guard let clockRate = SDPText.decimal(encoding[1], as: UInt32.self), clockRate > 0 else {
            throw SDPError("a=rtpmap clock rate \"\(encoding[1])\" is not a positive number")
        }
        var channels: UInt16? = nil
        if encoding.count == 3 {
            guard let count = SDPText.decimal(encoding[2], as: UInt16.self), count > 0 else {
                throw SDPError("a=rtpmap channel count \"\(encoding[2])\" is not a positive number")
            }
            channels = count
        }
        self.init(payloadType: payloadType, encodingName: String(encoding[0]), clockRate: clockRate, channels: channels)
    }

    public var attributeValue: String {
        var text = "\(payloadType) \(encodingName)/\(clockRate)"
        if let channels { text += "/\(channels)" }
        return text
    }

    /// Case-insensitive encoding name test (RFC 8866 §6.6: names are case-insensitive).
    public func isEncoding(_ name: String) -> Bool {
        SDPText.equalsIgnoringCase(encodingName, name)
    }
}
