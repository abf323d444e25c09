import OnAirSDP

/// A WHEP viewer's receive-only offer (draft-ietf-wish-whep §4.2, JSEP RFC 8829 §5.2.1), as a
/// browser would write it: BUNDLE of an Opus and an H.264 (Constrained Baseline,
/// packetization-mode=1) m= line, DTLS actpass, our one host candidate. `SDPNegotiator` only
/// writes send-only (WHIP) offers, so the load tool writes this one.
struct ViewerOffer {
    static let opusPayloadType: UInt8 = 111
    static let h264PayloadType: UInt8 = 96

    var ufrag: String
    var password: String
    var fingerprint: String
    var candidate: (host: String, port: UInt16)
    var sessionID: UInt64

    var sdp: String {
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
        lines += ["m=video 9 UDP/TLS/RTP/SAVPF \(Self.h264PayloadType)"] + transport + [
            "a=mid:1", "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
            "a=rtpmap:\(Self.h264PayloadType) H264/90000",
            "a=rtcp-fb:\(Self.h264PayloadType) nack",
            "a=rtcp-fb:\(Self.h264PayloadType) nack pli",
            "a=fmtp:\(Self.h264PayloadType) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        ]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The payload types the answer chose for Opus and H.264 (the answerer may renumber, RFC
    /// 3264 §6.1 lets it use its own numbers in a sendonly answer).
    static func payloadTypes(in answer: SessionDescription) -> (audio: UInt8?, video: UInt8?) {
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
