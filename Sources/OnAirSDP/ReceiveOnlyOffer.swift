/// A WHEP viewer's receive-only offer (draft-ietf-wish-whep §4.2, JSEP RFC 8829 §5.2.1), as a
/// browser would write it: BUNDLE of an Opus and an H.264 (Constrained Baseline,
/// packetization-mode=1) m= line, DTLS actpass, one host candidate. `SDPNegotiator` writes
/// send-only (WHIP) offers; load tools and tests watch with this one.
public struct ReceiveOnlyOffer: Sendable {
    public static let opusPayloadType: UInt8 = 111
    public static let h264PayloadType: UInt8 = 96
    public static let rtxPayloadType: UInt8 = 97
    /// The transport-wide sequence number extension's id when offered (Chromium's).
    public static let transportCCExtensionID: UInt8 = 3

    public var ufrag: String
    public var password: String
    /// `sha-256 AB:CD:...` (RFC 8122 §5).
    public var fingerprint: String
    public var candidate: (host: String, port: UInt16)
    public var sessionID: UInt64
    /// Offers transport-cc (draft-holmer-rmcat-transport-wide-cc-extensions-01) on the video,
    /// so that the answerer estimates the downlink from the offerer's feedback.
    public var transportCC: Bool
    /// Offers RTX (RFC 4588) for the H.264: the answerer may then send padding-only probes.
    public var rtx: Bool

    public init(ufrag: String, password: String, fingerprint: String, candidate: (host: String, port: UInt16),
                sessionID: UInt64, transportCC: Bool = false, rtx: Bool = false) {
        self.ufrag = ufrag
        self.password = password
        self.fingerprint = fingerprint
        self.candidate = candidate
        self.sessionID = sessionID
        self.transportCC = transportCC
        self.rtx = rtx
    }

    public var sdp: String {
        let transport = [
            "c=IN IP4 0.0.0.0",
            "a=rtcp:9 IN IP4 0.0.0.0",
            "a=ice-ufrag:\(ufrag)",
            "a=ice-pwd:\(password)",
            "a=fingerprint:\(fingerprint)",
            "a=setup:actpass",
        ]
        let candidateLines = [
            "a=candidate:1 1 udp 2130706431 \(candidate.host) \(candidate.port) typ host",
            "a=end-of-candidates",
        ]
        var lines = ["v=0", "o=- \(sessionID) 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1", "a=msid-semantic: WMS"]
        lines += ["m=audio 9 UDP/TLS/RTP/SAVPF \(Self.opusPayloadType)"] + transport + candidateLines + [
            "a=mid:0", "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
            "a=rtpmap:\(Self.opusPayloadType) opus/48000/2",
            "a=fmtp:\(Self.opusPayloadType) minptime=10;useinbandfec=1",
        ]
        let videoTypes = rtx ? "\(Self.h264PayloadType) \(Self.rtxPayloadType)" : "\(Self.h264PayloadType)"
        lines += ["m=video 9 UDP/TLS/RTP/SAVPF \(videoTypes)"] + transport + [
            "a=mid:1", "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
            "a=rtpmap:\(Self.h264PayloadType) H264/90000",
            "a=rtcp-fb:\(Self.h264PayloadType) nack",
            "a=rtcp-fb:\(Self.h264PayloadType) nack pli",
            "a=fmtp:\(Self.h264PayloadType) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        ]
        if rtx {
            lines += ["a=rtpmap:\(Self.rtxPayloadType) rtx/90000", "a=fmtp:\(Self.rtxPayloadType) apt=\(Self.h264PayloadType)"]
        }
        if transportCC {
            lines += ["a=rtcp-fb:\(Self.h264PayloadType) transport-cc",
                      "a=extmap:\(Self.transportCCExtensionID) \(RTPHeaderExtensionURI.transportWideCC)"]
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The payload types the answer chose for Opus and H.264 (the answerer may renumber, RFC
    /// 3264 §6.1 lets it use its own numbers in a sendonly answer).
    public static func payloadTypes(in answer: SessionDescription) -> (audio: UInt8?, video: UInt8?) {
        var audio: UInt8?
        var video: UInt8?
        for media in answer.media where !media.isRejected {
            for map in media.rtpMaps {
                if media.kind == .audio, audio == nil, map.isEncoding("opus") { audio = map.payloadType }
                if media.kind == .video, video == nil, map.isEncoding("H264") { video = map.payloadType }
            }
        }
        return (audio, video)
    }
}
