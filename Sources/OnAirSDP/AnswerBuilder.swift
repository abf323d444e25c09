/// Writes the parts of a JSEP answer (RFC 8829 §5.3) that do not depend on the codec choice:
/// the session header, our transport attributes and rejected m= lines.
struct AnswerBuilder {
    let local: LocalTransport
    let role: DTLSSetupRole

    /// The session: o=/s=/t=, BUNDLE of the accepted mids, and a=ice-lite for an ICE-lite
    /// agent (RFC 8839 §5.3).
    func session(media: [MediaDescription], bundleMids: [String]) -> SessionDescription {
        var attributes: [SDPAttribute] = []
        if !bundleMids.isEmpty { attributes.append(SDPAttribute(SDPGroup(semantics: SDPGroup.bundle, mids: bundleMids))) }
        if local.iceLite { attributes.append(SDPAttribute("ice-lite")) }
        return SessionDescription(origin: SDPOrigin(sessionID: String(local.sessionID)), attributes: attributes, media: media)
    }

    /// RFC 3264 §6 / RFC 8829 §5.3.1: a rejected m= line keeps media, proto and formats, with
    /// port 0; JSEP keeps its mid.
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var media = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats,
                                     connection: SDPConnection(address: "0.0.0.0"))
        if let mid = offered.mid { media.append("mid", mid) }
        return media
    }

    /// An accepted m= line with our transport attributes. Candidates go on the tagged (first
    /// bundled) m= line only: the peer uses that transport for the whole group (RFC 9143 §7.3).
    func accepted(kind: MediaKind, proto: String, mid: String, codec: NegotiatedCodec, withCandidates: Bool,
                  setup: DTLSSetup? = nil) -> MediaDescription {
        let defaultCandidate = local.candidates.first(where: { $0.isUDP }) ?? local.candidates.first
        var media = MediaDescription(kind: kind, port: defaultCandidate?.port ?? 9, proto: proto, formats: codec.formats,
                                     connection: SDPConnection(address: defaultCandidate?.address ?? "0.0.0.0"))
        if withCandidates {
            for candidate in local.candidates { media.append(candidate) }
            media.append("end-of-candidates")
        }
        media.append("ice-ufrag", local.iceUfrag)
        media.append("ice-pwd", local.icePassword)
        media.append(local.fingerprint)
        media.append(setup ?? role.setupAttribute)
        media.append("mid", mid)
        return media
    }

    /// RFC 8285 §7: an answer's extmap direction mirrors the offer's.
    static func answered(_ map: ExtMap) -> ExtMap {
        ExtMap(id: map.id, direction: map.direction?.reversed, uri: map.uri)
    }

    /// RFC 4588 §8.3 `a=ssrc-group:FID` and RFC 5576 cname/msid source attributes for a track.
    static func ssrcAttributes(_ ssrcs: LocalSSRCs, track: LocalSSRCs.Track, withRTX: Bool) -> [SDPAttribute] {
        let msid = MediaStreamID(streamID: ssrcs.streamID, trackID: track.trackID)
        var out: [SDPAttribute] = []
        var sources = [track.ssrc]
        if withRTX, let rtx = track.rtxSSRC {
            sources.append(rtx)
            out.append(SDPAttribute(SSRCGroup(semantics: SSRCGroup.flowIdentification, ssrcs: sources)))
        }
        for ssrc in sources {
            out.append(SDPAttribute(SSRCAttribute(ssrc: ssrc, name: "cname", value: ssrcs.cname)))
            out.append(SDPAttribute(SSRCAttribute(ssrc: ssrc, name: "msid", value: msid.attributeValue)))
        }
        return out
    }
}
