/// One payload type of an m= line with everything said about it: rtpmap, fmtp and rtcp-fb.
/// Built by `MediaDescription.payloadFormats` for codec negotiation.
public struct PayloadFormat: Sendable, Equatable {
    public var payloadType: UInt8
    /// nil for a dynamic payload type without an rtpmap line.
    public var rtpMap: RTPMap?
    public var parameters: [FormatParameter]
    public var feedback: [RTCPFeedback]

    public init(payloadType: UInt8, rtpMap: RTPMap?, parameters: [FormatParameter] = [], feedback: [RTCPFeedback] = []) {
        self.payloadType = payloadType
        self.rtpMap = rtpMap
        self.parameters = parameters
        self.feedback = feedback
    }

    /// A short name for error messages: "H264 (profile-level-id=42e01f, packetization-mode=1)", "VP8".
    public var summary: String {
        guard let rtpMap else { return "PT \(payloadType)" }
        guard rtpMap.isEncoding("H264") else { return rtpMap.encodingName }
        let h264 = H264FormatParameters(parameters)
        let profile = h264.map { "\($0.profileLevelID.hexString), packetization-mode=\($0.packetizationMode)" } ?? "bad profile-level-id"
        return "\(rtpMap.encodingName) (\(profile))"
    }
}
