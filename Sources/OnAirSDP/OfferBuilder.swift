/// Writes a WHIP client's offer (RFC 9725 §4.2, JSEP RFC 8829 §5.2): send-only Opus and H.264
/// on one BUNDLE transport, DTLS role left to the server (actpass).
enum OfferBuilder {
    /// Payload types and header extension ids we offer (the values Chromium uses).
    static let opusPayloadType: UInt8 = 111
    static let h264PayloadType: UInt8 = 96
    static let rtxPayloadType: UInt8 = 97
    static let extensionIDs: [(UInt16, String)] = [
        (1, RTPHeaderExtensionURI.audioLevel),
        (2, RTPHeaderExtensionURI.absSendTime),
        (3, RTPHeaderExtensionURI.transportWideCC),
        (4, RTPHeaderExtensionURI.mid),
    ]
    /// RFC 8852 rtp-stream-id, offered with simulcast only (Chromium's id).
    static let ridExtensionID: UInt16 = 10

    static func offer(local: LocalTransport, ssrcs: LocalSSRCs, videoProfileLevelID: H264ProfileLevelID) -> SessionDescription {
        var media: [MediaDescription] = []
        if let audio = ssrcs.audio {
            let codec = NegotiatedCodec(payloadType: opusPayloadType, name: "opus", clockRate: 48000, channels: 2,
                                        fmtp: [FormatParameter("minptime", "10"), FormatParameter("useinbandfec", "1")],
                                        rtcpFeedback: ["transport-cc"])
            media.append(section(kind: .audio, mid: String(media.count), codec: codec, track: audio, ssrcs: ssrcs,
                                 local: local, withCandidates: media.isEmpty))
        }
        if let video = ssrcs.video {
            let fmtp = H264FormatParameters(profileLevelID: videoProfileLevelID, packetizationMode: 1, levelAsymmetryAllowed: true)
            let codec = NegotiatedCodec(payloadType: h264PayloadType, name: "H264", clockRate: 90000, fmtp: fmtp.formatParameters,
                                        rtcpFeedback: ["nack", "nack pli", "ccm fir", "transport-cc"],
                                        rtxPayloadType: video.rtxSSRC == nil ? nil : rtxPayloadType)
            media.append(section(kind: .video, mid: String(media.count), codec: codec, track: video, ssrcs: ssrcs,
                                 local: local, withCandidates: media.isEmpty))
        }
        let builder = AnswerBuilder(local: local, role: .passive)
        return builder.session(media: media, bundleMids: media.compactMap(\.mid))
    }

    private static func section(kind: MediaKind, mid: String, codec: NegotiatedCodec, track: LocalSSRCs.Track,
                                ssrcs: LocalSSRCs, local: LocalTransport, withCandidates: Bool) -> MediaDescription {
        // JSEP §5.2.1: every m= line of an initial offer carries the transport attributes; with
        // BUNDLE the candidates matter only on the first (RFC 9143 §7.2), so we write them there.
        var media = AnswerBuilder(local: local, role: .passive)
            .accepted(kind: kind, proto: "UDP/TLS/RTP/SAVPF", mid: mid, codec: codec, withCandidates: withCandidates,
                      setup: .actpass)
        for (id, uri) in extensionIDs where kind == .audio || uri != RTPHeaderExtensionURI.audioLevel {
            media.append(ExtMap(id: id, uri: uri))
        }
        media.append(MediaDirection.sendonly.rawValue)
        media.append(MediaStreamID(streamID: ssrcs.streamID, trackID: track.trackID))
        media.append("rtcp-mux")
        media.append("rtcp-rsize")
        if !track.simulcastRIDs.isEmpty { media.append(ExtMap(id: ridExtensionID, uri: RTPHeaderExtensionURI.rtpStreamID)) }
        media.attributes += codec.attributes()
        guard !track.simulcastRIDs.isEmpty else {
            media.attributes += AnswerBuilder.ssrcAttributes(ssrcs, track: track, withRTX: codec.rtxPayloadType != nil)
            return media
        }
        // RFC 8853 §5.1, RFC 8851 §4: one send rid per encoding, best first.
        for rid in track.simulcastRIDs { media.append(RIDDescription(id: rid, direction: .send)) }
        media.append(SimulcastDescription(send: track.simulcastRIDs.map { [SimulcastDescription.Stream(rid: $0)] }))
        return media
    }
}
