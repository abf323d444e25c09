/// Offer/answer (RFC 3264, JSEP RFC 8829) for the relay's three roles, as pure functions.
///
/// - WHIP ingest (RFC 9725): `answerIngest` answers a publisher's send-only offer.
/// - WHEP egress (draft-ietf-wish-whep): `answerEgress` answers a viewer's receive-only offer
///   with the live publisher's codecs mapped to the viewer's payload types.
/// - WHIP client: `makeOffer` and `acceptAnswer` for our own broadcaster.
///
/// Errors carry the HTTP status to answer with (400 malformed, 422 unacceptable).
public enum SDPNegotiator {
    /// Answers a WHIP publisher: Opus and H.264 (packetization-mode=1, Constrained Baseline
    /// preferred) received over one BUNDLE transport, DTLS role passive unless the offer is
    /// passive, ICE-lite with all our candidates.
    public static func answerIngest(offer: SessionDescription, local: LocalTransport) throws(NegotiationError)
        -> (answer: SessionDescription, session: NegotiatedSession) {
        try IngestAnswerer.answer(offer: offer, local: local)
    }

    /// Answers a WHEP viewer for the publisher described by `source`. The returned session's
    /// media give the viewer's payload types and extension ids per m= line, for rewriting.
    public static func answerEgress(offer: SessionDescription, local: LocalTransport, source: NegotiatedSession,
                                    localSSRCs: LocalSSRCs) throws(NegotiationError)
        -> (answer: SessionDescription, session: NegotiatedSession) {
        try EgressAnswerer.answer(offer: offer, local: local, source: source, localSSRCs: localSSRCs)
    }

    /// A WHIP client's send-only offer: one m= line for each track in `ssrcs` (audio first),
    /// Opus 111 and H.264 96 (+ RTX 97 when the video track has an RTX SSRC).
    public static func makeOffer(local: LocalTransport, ssrcs: LocalSSRCs,
                                 videoProfileLevelID: H264ProfileLevelID = H264ProfileLevelID(profile: .constrainedBaseline, level: .level3_1))
        -> SessionDescription {
        OfferBuilder.offer(local: local, ssrcs: ssrcs, videoProfileLevelID: videoProfileLevelID)
    }

    /// Checks a WHIP server's answer to `offer` (from `makeOffer`) and returns the session.
    public static func acceptAnswer(answer: SessionDescription, offer: SessionDescription) throws(NegotiationError)
        -> NegotiatedSession {
        try AnswerAcceptor.accept(answer: answer, offer: offer)
    }
}
