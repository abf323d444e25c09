/// The codec chosen for one m= line, as the RTP layer needs it: payload types, clock, fmtp and
/// the RTCP feedback both sides agreed on.
public struct NegotiatedCodec: Sendable, Equatable {
    /// The payload type used on this leg (the viewer's for egress, so the relay rewrites
    /// publisher PT → viewer PT).
    public var payloadType: UInt8
    /// "H264" or "opus" as written in the rtpmap.
    public var name: String
    public var clockRate: UInt32
    public var channels: UInt16?
    /// The fmtp parameters written in our description, in order.
    public var fmtp: [FormatParameter]
    /// Agreed `a=rtcp-fb` values: "nack", "nack pli", "ccm fir", "transport-cc", "goog-remb".
    public var rtcpFeedback: [String]
    /// RFC 4588 RTX payload type whose apt= is `payloadType`, when negotiated.
    public var rtxPayloadType: UInt8?

    public init(payloadType: UInt8, name: String, clockRate: UInt32, channels: UInt16? = nil, fmtp: [FormatParameter] = [],
                rtcpFeedback: [String] = [], rtxPayloadType: UInt8? = nil) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.fmtp = fmtp
        self.rtcpFeedback = rtcpFeedback
        self.rtxPayloadType = rtxPayloadType
    }

    /// The feedback types this relay acts on or forwards, in the order it writes them.
    public static let supportedFeedback = ["nack", "nack pli", "ccm fir", "transport-cc", "goog-remb"]

    public var isH264: Bool { SDPText.equalsIgnoringCase(name, "H264") }
    public var isOpus: Bool { SDPText.equalsIgnoringCase(name, "opus") }

    /// RFC 6184 parameters when this is H.264.
    public var h264: H264FormatParameters? {
        isH264 ? H264FormatParameters(fmtp) : nil
    }

    public func hasFeedback(_ feedback: String) -> Bool {
        rtcpFeedback.contains(feedback)
    }

    /// The attribute lines describing this codec (and its RTX) in an m= section.
    func attributes() -> [SDPAttribute] {
        var out = [SDPAttribute(RTPMap(payloadType: payloadType, encodingName: name, clockRate: clockRate, channels: channels))]
        for feedback in rtcpFeedback {
            out.append(SDPAttribute(RTCPFeedback(payloadType: payloadType, feedback: feedback)))
        }
        if !fmtp.isEmpty {
            out.append(SDPAttribute(FormatParameters(payloadType: payloadType, parameters: fmtp)))
        }
        if let rtx = rtxPayloadType {
            out.append(SDPAttribute(RTPMap(payloadType: rtx, encodingName: "rtx", clockRate: clockRate)))
            out.append(SDPAttribute(FormatParameters(payloadType: rtx, parameters: [FormatParameter("apt", String(payloadType))])))
        }
        return out
    }

    /// The m= line's format list: the codec, then its RTX.
    var formats: [String] {
        [String(payloadType)] + (rtxPayloadType.map { [String($0)] } ?? [])
    }
}
