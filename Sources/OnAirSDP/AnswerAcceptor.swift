/// Checks a WHIP server's answer against our offer (RFC 3264 §6, JSEP RFC 8829 §5.10) and
/// extracts what our sender needs.
enum AnswerAcceptor {
    static func accept(answer: SessionDescription, offer: SessionDescription) throws(NegotiationError) -> NegotiatedSession {
        guard answer.media.count == offer.media.count else {
            throw .malformed("the answer has \(answer.media.count) m-lines, the offer had \(offer.media.count) (RFC 3264 §6)")
        }
        var negotiated: [NegotiatedMedia] = []
        var answered: [MediaDescription] = []
        for (index, (offered, media)) in zip(offer.media, answer.media).enumerated() {
            let label = CodecMatching.label(media, index: index)
            guard media.kind == offered.kind, media.mid == offered.mid else {
                throw .malformed("\(label) does not match the offer's m-line \(index) (\(offered.kind), mid \(offered.mid ?? "?"))")
            }
            guard !media.isRejected, let mid = media.mid else { continue }
            guard answer.direction(for: media).receives else {
                throw .unacceptable("\(label): the answer does not receive what we send (\(answer.direction(for: media).rawValue))")
            }
            guard media.rtcpMux else { throw .unacceptable("\(label): the answer has no a=rtcp-mux") }
            let codec = try chooseCodec(answer: media, offer: offered, label: label)
            let extensions = CodecMatching.keptExtensions(media, uris: offered.extMaps.map(\.uri))
            let localSSRC = offered.primarySSRC
            let remoteSSRC = media.primarySSRC
            negotiated.append(NegotiatedMedia(
                mid: mid, kind: media.kind, codec: codec, extensions: CodecMatching.extensionTable(extensions),
                remoteSSRC: remoteSSRC, remoteRTXSSRC: remoteSSRC.flatMap(media.rtxSSRC(for:)),
                remoteCNAME: remoteSSRC.flatMap(media.cname(for:)), rids: acceptedSimulcast(offered: offered, answer: media),
                localSSRC: localSSRC, localRTXSSRC: codec.rtxPayloadType == nil ? nil : localSSRC.flatMap(offered.rtxSSRC(for:))))
            answered.append(media)
        }
        guard !negotiated.isEmpty else { throw .unacceptable("the answer rejected every m-line") }
        guard let bundle = answer.bundleMids, let taggedMid = bundle.first(where: { mid in negotiated.contains { $0.mid == mid } }),
              negotiated.allSatisfy({ bundle.contains($0.mid) }) else {
            throw .unacceptable("the answer does not BUNDLE all accepted m-lines (RFC 9143 §7.3)")
        }
        let tagged = answered.first { $0.mid == taggedMid }!
        let transport = try RemoteTransport(answer, tagged: tagged, side: "answer")
        let role = try DTLSSetupRole.offering(answered: transport.setup)
        return NegotiatedSession(
            media: negotiated, remoteUfrag: transport.ufrag, remotePassword: transport.password,
            remoteFingerprint: transport.fingerprint, localSetup: role, remoteCandidates: transport.candidates,
            bundleMids: bundle, remoteICELite: transport.iceLite, remoteEndOfCandidates: transport.endOfCandidates)
    }

    /// RFC 8853 §5.3: the offered send rids the answer receives (`a=simulcast:recv`), in our
    /// order; none when the answer has no simulcast (then only the first encoding is sent).
    private static func acceptedSimulcast(offered: MediaDescription, answer: MediaDescription) -> [String] {
        guard let sent = offered.simulcast?.send, let received = answer.simulcast?.receive else { return [] }
        let accepted = Set(received.flatMap { $0.filter { !$0.paused }.map(\.rid) })
        return SimulcastDescription.rids(in: sent).filter(accepted.contains)
    }

    /// The answer's first payload type that we offered with the same codec (RFC 3264 §6.1: the
    /// answerer lists a subset of the offered formats). H.264 must keep packetization-mode=1
    /// and the offered profile; the level may differ (RFC 6184 §8.2.2).
    private static func chooseCodec(answer: MediaDescription, offer: MediaDescription,
                                    label: String) throws(NegotiationError) -> NegotiatedCodec {
        let offered = offer.payloadFormats
        for format in answer.payloadFormats {
            guard let map = format.rtpMap, !map.isEncoding("rtx"),
                  let ours = offered.first(where: { $0.payloadType == format.payloadType }), let ourMap = ours.rtpMap,
                  map.isEncoding(ourMap.encodingName), map.clockRate == ourMap.clockRate else { continue }
            var fmtp = ours.parameters
            if map.isEncoding("H264") {
                guard let theirs = CodecMatching.h264Mode1(format), let mine = CodecMatching.h264Mode1(ours),
                      theirs.profileLevelID.isSameProfile(as: mine.profileLevelID) else { continue }
                fmtp = mine.formatParameters
            } else if map.isEncoding("opus") {
                guard CodecMatching.isOpus(format) else { continue }
            }
            let rtx = answer.rtxPayloadType(for: format.payloadType)
            let rtxOffered = rtx != nil && offer.rtxPayloadType(for: format.payloadType) == rtx
            return NegotiatedCodec(payloadType: format.payloadType, name: ourMap.encodingName, clockRate: ourMap.clockRate,
                                   channels: ourMap.channels, fmtp: fmtp,
                                   rtcpFeedback: CodecMatching.keptFeedback(format.feedback, alsoSupportedBy: ours.feedback.map(\.feedback)),
                                   rtxPayloadType: rtxOffered ? rtx : nil)
        }
        throw .unacceptable("\(label): the answer chose no codec we offered (answered: \(CodecMatching.offeredSummary(answer)))")
    }
}
