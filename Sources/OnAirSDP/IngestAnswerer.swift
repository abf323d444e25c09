/// Answers a WHIP publisher's offer (RFC 9725 §4.2): receive-only Opus and H.264 over one
/// BUNDLE transport, everything else rejected.
enum IngestAnswerer {
    /// What we decided for one offered m= line.
    private struct Accepted {
        var index: Int
        var offered: MediaDescription
        var mid: String
        var codec: NegotiatedCodec
        var extensions: [ExtMap]
        var sendRIDs: [[SimulcastDescription.Stream]]
    }

    static func answer(offer: SessionDescription, local: LocalTransport) throws(NegotiationError)
        -> (answer: SessionDescription, session: NegotiatedSession) {
        guard let bundle = offer.bundleMids, !bundle.isEmpty else {
            throw .unacceptable("the offer has no a=group:BUNDLE; the relay carries all media on one transport (RFC 9143)")
        }
        try CodecMatching.checkUniqueMids(offer)
        var accepted: [Accepted] = []
        for (index, media) in offer.media.enumerated() {
            if let decision = try decide(media, index: index, offer: offer, bundle: bundle) { accepted.append(decision) }
        }
        guard !accepted.isEmpty else {
            throw .unacceptable("the offer sends no audio or video in its BUNDLE group")
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
            answerMedia.append(mediaSection(plan, builder: builder, withCandidates: plan.mid == tagged.mid))
            negotiated.append(negotiatedMedia(plan))
        }
        let session = NegotiatedSession(
            media: negotiated, remoteUfrag: transport.ufrag, remotePassword: transport.password,
            remoteFingerprint: transport.fingerprint, localSetup: role, remoteCandidates: transport.candidates,
            bundleMids: acceptedMids, remoteICELite: transport.iceLite, remoteEndOfCandidates: transport.endOfCandidates)
        return (builder.session(media: answerMedia, bundleMids: acceptedMids), session)
    }

    /// nil rejects the m= line (port 0); a throw rejects the whole offer.
    private static func decide(_ media: MediaDescription, index: Int, offer: SessionDescription,
                               bundle: [String]) throws(NegotiationError) -> Accepted? {
        guard !media.isRejected, media.kind == .audio || media.kind == .video,
              CodecMatching.isWebRTCMediaProto(media.proto) else { return nil }
        let label = CodecMatching.label(media, index: index)
        guard let mid = media.mid else { throw .malformed("\(label) has no a=mid (RFC 8829 §5.2.1)") }
        guard bundle.contains(mid), offer.direction(for: media).sends else { return nil }
        guard media.rtcpMux else {
            throw .unacceptable("\(label) has no a=rtcp-mux; the relay multiplexes RTP and RTCP (RFC 8829 §5.1.3)")
        }
        let codec = try chooseCodec(media, label: label)
        var uris = RTPHeaderExtensionURI.relayed
        let sendRIDs = simulcastSendStreams(media)
        if !sendRIDs.isEmpty { uris += RTPHeaderExtensionURI.simulcast }
        return Accepted(index: index, offered: media, mid: mid, codec: codec,
                        extensions: CodecMatching.keptExtensions(media, uris: uris), sendRIDs: sendRIDs)
    }

    private static func chooseCodec(_ media: MediaDescription, label: String) throws(NegotiationError) -> NegotiatedCodec {
        if media.kind == .audio {
            guard let opus = media.payloadFormats.first(where: CodecMatching.isOpus) else {
                throw .unacceptable("\(label): no opus/48000/2 offered (offered: \(CodecMatching.offeredSummary(media)))")
            }
            return NegotiatedCodec(payloadType: opus.payloadType, name: opus.rtpMap!.encodingName, clockRate: 48000,
                                   channels: 2, fmtp: opus.parameters,
                                   rtcpFeedback: CodecMatching.keptFeedback(opus.feedback), rtxPayloadType: nil)
        }
        guard let (format, h264) = CodecMatching.bestIngestH264(in: media) else {
            throw .unacceptable("\(label): no H.264 with packetization-mode=1 offered (offered: \(CodecMatching.offeredSummary(media)))")
        }
        // RFC 6184 §8.2.2: we can receive any level, so with level-asymmetry-allowed=1 we answer
        // the offerer's own profile-level-id; without it min(offer, ours) is the offer's too.
        let fmtp = H264FormatParameters(profileLevelID: h264.profileLevelID, packetizationMode: 1, levelAsymmetryAllowed: true)
        return NegotiatedCodec(payloadType: format.payloadType, name: format.rtpMap!.encodingName, clockRate: 90000,
                               fmtp: fmtp.formatParameters, rtcpFeedback: CodecMatching.keptFeedback(format.feedback),
                               rtxPayloadType: media.rtxPayloadType(for: format.payloadType))
    }

    /// RFC 8853 §5.1: the publisher's `a=simulcast:send` streams whose rids it declares as send.
    private static func simulcastSendStreams(_ media: MediaDescription) -> [[SimulcastDescription.Stream]] {
        guard let simulcast = media.simulcast else { return [] }
        let declared = Set(media.rids.filter { $0.direction == .send }.map(\.id))
        return simulcast.send.compactMap { alternatives in
            let kept = alternatives.filter { declared.contains($0.rid) }
            return kept.isEmpty ? nil : kept
        }
    }

    private static func mediaSection(_ plan: Accepted, builder: AnswerBuilder, withCandidates: Bool) -> MediaDescription {
        var media = builder.accepted(kind: plan.offered.kind, proto: plan.offered.proto, mid: plan.mid, codec: plan.codec,
                                     withCandidates: withCandidates)
        for map in plan.extensions { media.append(AnswerBuilder.answered(map)) }
        media.append(MediaDirection.recvonly.rawValue)
        media.append("rtcp-mux")
        if plan.offered.rtcpReducedSize { media.append("rtcp-rsize") }
        media.attributes += plan.codec.attributes()
        if !plan.sendRIDs.isEmpty {
            for rid in plan.sendRIDs.flatMap({ $0 }) { media.append(RIDDescription(id: rid.rid, direction: .recv)) }
            media.append(SimulcastDescription(receive: plan.sendRIDs))
        }
        return media
    }

    private static func negotiatedMedia(_ plan: Accepted) -> NegotiatedMedia {
        let ssrc = plan.offered.primarySSRC
        return NegotiatedMedia(
            mid: plan.mid, kind: plan.offered.kind, codec: plan.codec,
            extensions: CodecMatching.extensionTable(plan.extensions), remoteSSRC: ssrc,
            remoteRTXSSRC: ssrc.flatMap(plan.offered.rtxSSRC(for:)), remoteCNAME: ssrc.flatMap(plan.offered.cname(for:)),
            rids: SimulcastDescription.rids(in: plan.sendRIDs))
    }
}
