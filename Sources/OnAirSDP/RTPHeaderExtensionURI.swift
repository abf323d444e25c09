/// RTP header extension URIs (RFC 8285) that the relay negotiates.
public enum RTPHeaderExtensionURI {
    /// RFC 9143 §15.2 (BUNDLE): which m= line a packet belongs to.
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// libwebrtc's absolute send time (for receive-side bandwidth estimation).
    public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// Transport-wide sequence numbers for transport-cc feedback.
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// RFC 6464 client-to-mixer audio level.
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// RFC 8852 §3.1 RtpStreamId (simulcast rid).
    public static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// RFC 8852 §3.2 RepairedRtpStreamId (rid of the stream an RTX packet repairs).
    public static let repairedRTPStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"

    /// Kept on every accepted m= line when offered.
    public static let relayed: [String] = [mid, absSendTime, transportWideCC, audioLevel]
    /// Written by the relay on what it sends a viewer, for the viewer's bandwidth estimation.
    public static let writtenForViewers: [String] = [absSendTime, transportWideCC]
    /// Also kept when the publisher sends simulcast, since rids travel in these.
    public static let simulcast: [String] = [rtpStreamID, repairedRTPStreamID]
}
