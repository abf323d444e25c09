import OnAirSDP
import Testing

@Suite("WHIP client offer and answer (RFC 9725, JSEP)")
struct ClientOfferTests {
    let offer = SDPNegotiator.makeOffer(local: TestValues.clientTransport, ssrcs: TestValues.ssrcs)

    @Test("the offer is the one Chromium and aiortc answered")
    func offerIsPinned() throws {
        #expect(offer.serialize() == crlf(AnswersToOurOffer.offer))
        #expect(try SessionDescription.parse(offer.serialize()) == offer)
    }

    @Test func offerContents() throws {
        #expect(offer.bundleMids == ["0", "1"] && !offer.iceLite)
        let audio = offer.media[0], video = offer.media[1]
        for media in offer.media {
            #expect(media.direction == .sendonly && media.setup == .actpass && media.rtcpMux && media.rtcpReducedSize)
            #expect(media.iceUfrag == "rlyU" && media.fingerprints == [TestValues.fingerprint])
        }
        #expect(audio.rtpMap(for: 111) == RTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(video.formats == ["96", "97"])
        #expect(video.formatParameters(for: 96).formatParameterText == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(video.rtcpFeedback(for: 96).map(\.feedback) == ["nack", "nack pli", "ccm fir", "transport-cc"])
        #expect(video.rtxPayloadType(for: 96) == 97)
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [2222, 3333])])
        #expect(video.msids == [MediaStreamID(streamID: "stream1", trackID: "v0")])
        #expect(audio.extMaps.map(\.uri) == [RTPHeaderExtensionURI.audioLevel, RTPHeaderExtensionURI.absSendTime,
                                            RTPHeaderExtensionURI.transportWideCC, RTPHeaderExtensionURI.mid])
        #expect(!video.extMaps.contains { $0.uri == RTPHeaderExtensionURI.audioLevel })
        #expect(audio.candidates == [TestValues.relayCandidate] && audio.endOfCandidates && video.candidates.isEmpty)

        let high = SDPNegotiator.makeOffer(local: TestValues.clientTransport, ssrcs: LocalSSRCs(
            cname: "c", streamID: "s", video: .init(ssrc: 5, trackID: "v")), videoProfileLevelID: H264ProfileLevelID(profile: .high, level: .level4))
        #expect(high.media.count == 1 && high.media[0].kind == .video && high.media[0].formats == ["96"])
        #expect(high.media[0].formatParameters(for: 96).value(for: "profile-level-id") == "640028")
    }

    @Test func chromiumAnswer() throws {
        let session = try SDPNegotiator.acceptAnswer(answer: SessionDescription.parse(AnswersToOurOffer.chromium), offer: offer)
        #expect(session.localSetup == .passive)
        #expect(session.remoteUfrag == "Z6om" && session.remotePassword == "50ENczD/dVyAEzH8TPOxyEmx")
        #expect(session.remoteCandidates.isEmpty && !session.remoteEndOfCandidates)
        let audio = try #require(session.media(of: .audio)), video = try #require(session.media(of: .video))
        #expect(audio.codec.payloadType == 111 && audio.localSSRC == 1111)
        #expect(video.codec.payloadType == 96 && video.codec.rtxPayloadType == 97)
        #expect(video.codec.rtcpFeedback == ["nack", "nack pli", "ccm fir", "transport-cc"])
        #expect(video.localSSRC == 2222 && video.localRTXSSRC == 3333 && video.remoteSSRC == nil)
        #expect(video.extensions == [2: RTPHeaderExtensionURI.absSendTime, 3: RTPHeaderExtensionURI.transportWideCC,
                                     4: RTPHeaderExtensionURI.mid])
    }

    @Test func aiortcAnswer() throws {
        let session = try SDPNegotiator.acceptAnswer(answer: SessionDescription.parse(AnswersToOurOffer.aiortc), offer: offer)
        #expect(session.localSetup == .passive && session.remoteEndOfCandidates)
        #expect(session.remoteCandidates.map(\.port) == [33750])
        #expect(session.remoteFingerprint.algorithm == "sha-256")
        let audio = try #require(session.media(of: .audio)), video = try #require(session.media(of: .video))
        #expect(audio.extensions == [1: RTPHeaderExtensionURI.audioLevel, 4: RTPHeaderExtensionURI.mid])
        #expect(audio.codec.rtcpFeedback.isEmpty)
        #expect(video.codec.rtcpFeedback == ["nack", "nack pli"] && video.codec.rtxPayloadType == 97)
        #expect(video.remoteSSRC == 2725480445 && video.remoteRTXSSRC == 650998200)
    }

    @Test("a simulcast offer (RFC 8853): send rids best first, the rid extension, no a=ssrc; the answer's recv rids are kept")
    func simulcastOffer() throws {
        let offer = SDPNegotiator.makeOffer(local: TestValues.clientTransport, ssrcs: LocalSSRCs(
            cname: "c", streamID: "s", video: .init(ssrc: 5, trackID: "v", simulcastRIDs: ["f", "h", "q"])))
        let video = offer.media[0]
        #expect(video.rids == ["f", "h", "q"].map { RIDDescription(id: $0, direction: .send) })
        #expect(video.simulcast?.attributeValue == "send f;h;q")
        #expect(video.extMaps.contains(ExtMap(id: 10, uri: RTPHeaderExtensionURI.rtpStreamID)))
        #expect(video.primarySSRC == nil && !offer.serialize().contains("a=ssrc:"))
        let (answer, relaySide) = try SDPNegotiator.answerIngest(offer: SessionDescription.parse(offer.serialize()),
                                                                 local: TestValues.relayTransport)
        #expect(relaySide.media[0].rids == ["f", "h", "q"])
        let accepted = try SDPNegotiator.acceptAnswer(answer: SessionDescription.parse(answer.serialize()), offer: offer)
        #expect(accepted.media[0].rids == ["f", "h", "q"] && accepted.media[0].extensionID(for: RTPHeaderExtensionURI.rtpStreamID) == 10)
        // An answer that receives only some layers (or pauses one) gets only those.
        let partial = answer.serialize().replacing("a=simulcast:recv f;h;q", with: "a=simulcast:recv f;~h")
        #expect(try SDPNegotiator.acceptAnswer(answer: SessionDescription.parse(partial), offer: offer).media[0].rids == ["f"])
        // An answer without simulcast: one encoding.
        let plain = answer.serialize().replacing("a=simulcast:recv f;h;q\r\n", with: "")
        #expect(try SDPNegotiator.acceptAnswer(answer: SessionDescription.parse(plain), offer: offer).media[0].rids.isEmpty)
    }

    @Test("our offer, answered by our own ingest side, is accepted")
    func loopback() throws {
        let (answer, relaySide) = try SDPNegotiator.answerIngest(offer: offer, local: TestValues.relayTransport)
        let clientSide = try SDPNegotiator.acceptAnswer(answer: SessionDescription.parse(answer.serialize()), offer: offer)
        #expect(relaySide.localSetup == .passive && clientSide.localSetup == .active)
        #expect(clientSide.media.map(\.codec) == relaySide.media.map(\.codec))
        #expect(relaySide.media.map(\.remoteSSRC) == clientSide.media.map(\.localSSRC))
        #expect(relaySide.media[1].remoteRTXSSRC == 3333 && relaySide.media[1].remoteCNAME == "relaycname")
        #expect(clientSide.remoteICELite && clientSide.remoteCandidates == [TestValues.relayCandidate])
    }

    func refusal(_ answer: String) throws -> NegotiationError? {
        let parsed = try SessionDescription.parse(answer)
        return #expect(throws: NegotiationError.self) { try SDPNegotiator.acceptAnswer(answer: parsed, offer: offer) }
    }

    @Test func refusals() throws {
        let chromium = AnswersToOurOffer.chromium
        #expect(try refusal(chromium.replacing("a=setup:active", with: "a=setup:actpass")) ==
            .malformed("the answer's a=setup must be active or passive (RFC 8842 §5.2), found actpass"))
        #expect(try refusal(String(chromium[..<chromium.firstRange(of: "m=video")!.lowerBound])) ==
            .malformed("the answer has 1 m-lines, the offer had 2 (RFC 3264 §6)"))
        #expect(try refusal(chromium.replacing("m=audio 9", with: "m=audio 0").replacing("m=video 9", with: "m=video 0")) ==
            .unacceptable("the answer rejected every m-line"))
        #expect(try refusal(removingLines("a=group:BUNDLE", from: chromium)) ==
            .unacceptable("the answer does not BUNDLE all accepted m-lines (RFC 9143 §7.3)"))
        #expect(try refusal(chromium.replacing("a=recvonly", with: "a=inactive"))?.status == 422)
        #expect(try refusal(chromium.replacing("a=mid:1", with: "a=mid:7"))?.status == 400)
        #expect(try refusal(chromium.replacing("a=rtpmap:96 H264/90000", with: "a=rtpmap:96 VP8/90000")) ==
            .unacceptable("m-line 1 (video, mid 1): the answer chose no codec we offered (answered: VP8)"))
        #expect(try refusal(chromium.replacing("profile-level-id=42e01f", with: "profile-level-id=64001f"))?.status == 422)
    }
}
