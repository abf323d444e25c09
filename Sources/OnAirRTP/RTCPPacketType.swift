/// RTCP packet types (RFC 3550 §12.1, RFC 4585 §6.1, RFC 3611) and the feedback message
/// types (FMT) this module understands.
public enum RTCPPacketType {
    /// SR, RFC 3550 §6.4.1
    public static let senderReport: UInt8 = 200
    /// RR, RFC 3550 §6.4.2
    public static let receiverReport: UInt8 = 201
    /// SDES, RFC 3550 §6.5
    public static let sourceDescription: UInt8 = 202
    /// BYE, RFC 3550 §6.6
    public static let goodbye: UInt8 = 203
    /// APP, RFC 3550 §6.7
    public static let applicationDefined: UInt8 = 204
    /// RTPFB, RFC 4585 §6.2 transport layer feedback
    public static let transportFeedback: UInt8 = 205
    /// PSFB, RFC 4585 §6.3 payload-specific feedback
    public static let payloadSpecificFeedback: UInt8 = 206
    /// XR, RFC 3611
    public static let extendedReport: UInt8 = 207

    /// RTPFB FMT 1, RFC 4585 §6.2.1
    public static let genericNACKFormat: UInt8 = 1
    /// RTPFB FMT 15, draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1
    public static let transportWideCCFormat: UInt8 = 15
    /// PSFB FMT 1, RFC 4585 §6.3.1
    public static let pictureLossFormat: UInt8 = 1
    /// PSFB FMT 4, RFC 5104 §4.3.1
    public static let fullIntraRequestFormat: UInt8 = 4
    /// PSFB FMT 15, application layer feedback (RFC 4585 §6.4), which carries REMB
    public static let applicationLayerFeedbackFormat: UInt8 = 15
}
