/// Answers a WHEP viewer's offer (draft-ietf-wish-whep §4.2): for each m= line the live
/// publisher feeds, pick the viewer's payload type that decodes the publisher's stream, so the
/// relay forwards packets untouched except for payload type, SSRC and header extension ids.
enum EgressAnswerer {
    private struct Accepted {
        var index: Int
        var offered: MediaDescription
        var mid: String
        var codec: NegotiatedCodec
        var extensions: [ExtMap]
        var track: LocalSSRCs.Track?
    }

    static func answer(offer: SessionDescription, local: LocalTransport, source: NegotiatedSession,
                       localSSRCs: LocalSSRCs) throws(NegotiationError) -> (answer: SessionDescription, session: NegotiatedSession) {
        guard let bundle = offer.bundleMids, !bundle.isEmpty else {
            throw .unacceptable("the offer has no a=group:BUNDLE; the relay carries all media on one transport (RFC 9143)")
        }
        try CodecMatching.checkUniqueMids(offer)
        var unused = source.media
        var accepted: [Accepted] = []
        for (index, media) in offer.media.enumerated() {
            guard let feed = try feed(for: media, index: index, offer: offer, bundle: bundle, unused: &unused) else { continue }
            let label = CodecMatching.label(media, index: index)
            let track = localSSRCs.track(for: media.kind)
            let codec = try chooseCodec(media, matching: feed.codec, label: label, rtxAvailable: track?.rtxSSRC != nil)
            // The relay writes abs-send-time and transport-wide sequence numbers itself (the
            // viewer's bandwidth estimate), whatever the publisher negotiated.
            let extensions = CodecMatching.keptExtensions(media, uris: Array(feed.extensions.values) + RTPHeaderExtensionURI.writtenForViewers)
            accepted.append(Accepted(index: index, offered: media, mid: media.mid!, codec: codec, extensions: extensions, track: track))
        }
        guard !accepted.isEmpty else {
            let kinds = source.media.map(\.kind.rawValue).joined(separator: ", ")
            throw .unacceptable("the offer receives none of the stream's media (\(kinds)) in its BUNDLE group")
        }
        let acceptedMids = bundle.filter { mid in accepted.contains { $0.mid == mid } }
        let tagged = accepted.first { $0.mid == acceptedMids[0] }!
        let transport = try RemoteTransport(offer, tagged: tagged.offered, side: "offer")
        let role = try DTLSSetupRole.answering(transport.setup)
        let builder = AnswerBuilder(local: local, role: role)

        var answerMedia: [MediaDescription] = []
        var negotiated: [NegotiatedMedia] = []
        for (index, offered) in offer.media.enumerated() {
            guard let plan = accepted.first(where: { $0.index == index }) else {
                answerMedia.append(AnswerBuilder.rejected(offered))
                continue
            }
            answerMedia.append(mediaSection(plan, builder: builder, ssrcs: localSSRCs, withCandidates: plan.mid == tagged.mid))
            let remote = offered.primarySSRC
            negotiated.append(NegotiatedMedia(
                mid: plan.mid, kind: offered.kind, codec: plan.codec, extensions: CodecMatching.extensionTable(plan.extensions),
                remoteSSRC: remote, remoteRTXSSRC: remote.flatMap(offered.rtxSSRC(for:)),
                remoteCNAME: remote.flatMap(offered.cname(for:)), localSSRC: plan.track?.ssrc,
                localRTXSSRC: plan.codec.rtxPayloadType == nil ? nil : plan.track?.rtxSSRC))
        }
        let session = NegotiatedSession(
            media: negotiated, remoteUfrag: transport.ufrag, remotePassword: transport.password,
            remoteFingerprint: transport.fingerprint, localSetup: role, remoteCandidates: transport.candidates,
            bundleMids: acceptedMids, remoteICELite: transport.iceLite, remoteEndOfCandidates: transport.endOfCandidates)
        return (builder.session(media: answerMedia, bundleMids: acceptedMids), session)
    }

    /// The publisher's m= line this viewer m= line will carry (the next unused one of its kind),
    /// or nil to reject the viewer's m= line.
    private static func feed(for media: MediaDescription, index: Int, offer: SessionDescription, bundle: [String],
                             unused: inout [NegotiatedMedia]) throws(NegotiationError) -> NegotiatedMedia? {
        guard !media.isRejected, media.kind == .audio || media.kind == .video,
              CodecMatching.isWebRTCMediaProto(media.proto) else { return nil }
        let label = CodecMatching.label(media, index: index)
        guard let mid = media.mid else { throw .malformed("\(label) has no a=mid (RFC 8829 §5.2.1)") }
        guard bundle.contains(mid), offer.direction(for: media).receives,
              let position = unused.firstIndex(where: { $0.kind == media.kind }) else { return nil }
        guard media.rtcpMux else {
            throw .unacceptable("\(label) has no a=rtcp-mux; the relay multiplexes RTP and RTCP (RFC 8829 §5.1.3)")
        }
        return unused.remove(at: position)
    }

    /// The viewer's first payload type (in its preference order) that decodes `source`.
    private static func chooseCodec(_ media: MediaDescription, matching source: NegotiatedCodec, label: String,
                                    rtxAvailable: Bool) throws(NegotiationError) -> NegotiatedCodec {
        for format in media.payloadFormats {
            guard let fmtp = compatibleParameters(format, source: source) else { continue }
            let rtx = rtxAvailable ? media.rtxPayloadType(for: format.payloadType) : nil
            return NegotiatedCodec(payloadType: format.payloadType, name: source.name, clockRate: source.clockRate,
                                   channels: source.channels, fmtp: fmtp,
                                   rtcpFeedback: CodecMatching.keptFeedback(format.feedback), rtxPayloadType: rtx)
        }
        let wanted: String
        if let h264 = source.h264 {
            wanted = "H.264 \(h264.profileLevelID.profile?.rawValue ?? "?") level \(h264.profileLevelID.level?.description ?? "?") with packetization-mode=1"
        } else {
            wanted = "\(source.name)/\(source.clockRate)" + (source.channels.map { "/\($0)" } ?? "")
        }
        throw .unacceptable("\(label): the stream is \(wanted), which the offer cannot receive (offered: \(CodecMatching.offeredSummary(media)))")
    }

    /// The fmtp to answer with when `format` can receive `source`, else nil.
    ///
    /// H.264 (RFC 6184 §8.2.2): same profile, packetization-mode=1, and a level at least the
    /// publisher's — or level-asymmetry-allowed=1, with which the viewer accepts a different
    /// send level. The answer describes what we send: the publisher's profile-level-id.
    static func compatibleParameters(_ format: PayloadFormat, source: NegotiatedCodec) -> [FormatParameter]? {
        guard let map = format.rtpMap, map.isEncoding(source.name), map.clockRate == source.clockRate,
              (map.channels ?? 1) == (source.channels ?? 1) else { return nil }
        guard let sourceH264 = source.h264 else { return format.parameters }
        guard let viewer = CodecMatching.h264Mode1(format),
              viewer.profileLevelID.isSameProfile(as: sourceH264.profileLevelID),
              let viewerLevel = viewer.profileLevelID.level, let sourceLevel = sourceH264.profileLevelID.level,
              viewer.levelAsymmetryAllowed || viewerLevel >= sourceLevel else { return nil }
        return H264FormatParameters(profileLevelID: sourceH264.profileLevelID, packetizationMode: 1,
                                    levelAsymmetryAllowed: true).formatParameters
    }

    private static func mediaSection(_ plan: Accepted, builder: AnswerBuilder, ssrcs: LocalSSRCs,
                                     withCandidates: Bool) -> MediaDescription {
        var media = builder.accepted(kind: plan.offered.kind, proto: plan.offered.proto, mid: plan.mid, codec: plan.codec,
                                     withCandidates: withCandidates)
        for map in plan.extensions { media.append(AnswerBuilder.answered(map)) }
        media.append(MediaDirection.sendonly.rawValue)
        if let track = plan.track { media.append(MediaStreamID(streamID: ssrcs.streamID, trackID: track.trackID)) }
        media.append("rtcp-mux")
        if plan.offered.rtcpReducedSize { media.append("rtcp-rsize") }
        media.attributes += plan.codec.attributes()
        if let track = plan.track {
            media.attributes += AnswerBuilder.ssrcAttributes(ssrcs, track: track, withRTX: plan.codec.rtxPayloadType != nil)
        }
        return media
    }
}
