import OnAirSDP
import Testing

@Suite("WHEP egress answers (draft-ietf-wish-whep)")
struct EgressNegotiationTests {
    /// The publisher's session as the relay keeps it after answering its WHIP offer.
    func publisher(_ text: String) throws -> NegotiatedSession {
        try SDPNegotiator.answerIngest(offer: SessionDescription.parse(text), local: TestValues.relayTransport).session
    }

    func answer(viewer: String, publisher source: NegotiatedSession, ssrcs: LocalSSRCs = TestValues.ssrcs) throws
        -> (answer: SessionDescription, session: NegotiatedSession) {
        try SDPNegotiator.answerEgress(offer: SessionDescription.parse(viewer), local: TestValues.relayTransport,
                                       source: source, localSSRCs: ssrcs)
    }

    @Test func chromiumViewerOfChromiumPublisher() throws {
        let (answer, session) = try answer(viewer: crlf(ChromiumOffers.whep), publisher: publisher(ChromiumOffers.whip))
        let audio = try #require(session.media(of: .audio)), video = try #require(session.media(of: .video))
        #expect(audio.codec.payloadType == 111 && audio.codec.fmtp.formatParameterText == "minptime=10;useinbandfec=1")
        #expect(audio.codec.rtcpFeedback == ["transport-cc"])
        #expect(audio.localSSRC == 1111 && audio.localRTXSSRC == nil)
        #expect(video.codec.payloadType == 108 && video.codec.rtxPayloadType == 109)
        #expect(video.codec.fmtp.formatParameterText == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(video.codec.rtcpFeedback == ["nack", "nack pli", "ccm fir", "transport-cc", "goog-remb"])
        #expect(video.localSSRC == 2222 && video.localRTXSSRC == 3333)
        // Only extensions the publisher's leg carries, under the viewer's ids.
        #expect(video.extensions == [2: RTPHeaderExtensionURI.absSendTime, 3: RTPHeaderExtensionURI.transportWideCC,
                                     4: RTPHeaderExtensionURI.mid])
        #expect(session.remoteUfrag == "pKds" && session.localSetup == .passive && session.remoteCandidates.count == 8)

        let section = answer.media[1]
        #expect(section.direction == .sendonly && section.formats == ["108", "109"])
        #expect(section.msids == [MediaStreamID(streamID: "stream1", trackID: "v0")])
        #expect(section.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [2222, 3333])])
        #expect(section.ssrcAttributes == [
            SSRCAttribute(ssrc: 2222, name: "cname", value: "relaycname"), SSRCAttribute(ssrc: 2222, name: "msid", value: "stream1 v0"),
            SSRCAttribute(ssrc: 3333, name: "cname", value: "relaycname"), SSRCAttribute(ssrc: 3333, name: "msid", value: "stream1 v0"),
        ])
        #expect(answer.media[0].ssrcGroups.isEmpty && answer.media[0].primarySSRC == 1111)
        #expect(answer.iceLite && answer.bundleMids == ["0", "1"])
        #expect(try SessionDescription.parse(answer.serialize()) == answer)
    }

    @Test("publisher payload types are mapped to the viewer's")
    func aiortcViewerOfChromiumPublisher() throws {
        let (_, session) = try answer(viewer: AiortcOffers.whep, publisher: publisher(ChromiumOffers.whip))
        #expect(session.media(of: .audio)?.codec.payloadType == 96)
        let video = try #require(session.media(of: .video))
        #expect(video.codec.payloadType == 101 && video.codec.rtxPayloadType == 102)
        #expect(video.codec.rtcpFeedback == ["nack", "nack pli", "goog-remb"])
        #expect(video.extensions == [1: RTPHeaderExtensionURI.mid, 3: RTPHeaderExtensionURI.absSendTime])
        #expect(session.media(of: .audio)?.extensions == [1: RTPHeaderExtensionURI.mid, 2: RTPHeaderExtensionURI.audioLevel])
    }

    @Test func chromiumViewerOfMainProfilePublisher() throws {
        let source = try publisher(offer(media: [opusSection(), h264Section(["packetization-mode=1;profile-level-id=4d0028"])]))
        let video = try #require(try answer(viewer: ChromiumOffers.whep, publisher: source).session.media(of: .video))
        #expect(video.codec.payloadType == 116 && video.codec.rtxPayloadType == 117)
        #expect(video.codec.h264?.profileLevelID.hexString == "4d0028")
    }

    @Test("levels: a viewer decodes a higher publisher level only with level-asymmetry-allowed")
    func levelRules() throws {
        let level4 = try publisher(offer(media: [opusSection(), h264Section(["packetization-mode=1;profile-level-id=42e028"])]))
        let symmetricViewer = offer(media: [opusSection(direction: "recvonly"),
                                            h264Section(["packetization-mode=1;profile-level-id=42e01f"], direction: "recvonly")])
        let error = #expect(throws: NegotiationError.self) { try answer(viewer: symmetricViewer, publisher: level4) }
        #expect(error == .unacceptable("m-line 1 (video, mid 1): the stream is H.264 constrained baseline level 4 with packetization-mode=1, which the offer cannot receive (offered: H264 (42e01f, packetization-mode=1))"))

        let asymmetricViewer = offer(media: [opusSection(direction: "recvonly"), h264Section(
            ["level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"], direction: "recvonly")])
        #expect(try answer(viewer: asymmetricViewer, publisher: level4).session.media(of: .video)?.codec.payloadType == 100)

        let higherViewer = offer(media: [opusSection(direction: "recvonly"),
                                         h264Section(["packetization-mode=1;profile-level-id=42e032"], direction: "recvonly")])
        let video = try #require(try answer(viewer: higherViewer, publisher: level4).session.media(of: .video))
        #expect(video.codec.h264?.profileLevelID.hexString == "42e028")
    }

    @Test("profiles must match: a Constrained Baseline stream is not offered to a Main-only viewer")
    func profileMismatch() throws {
        let source = try publisher(ChromiumOffers.whip)
        let viewer = offer(media: [opusSection(direction: "recvonly"), h264Section(
            ["level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f",
             "level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f"], direction: "recvonly")])
        let error = #expect(throws: NegotiationError.self) { try answer(viewer: viewer, publisher: source) }
        #expect(error?.status == 422)
    }

    @Test("without an RTX SSRC no RTX is negotiated")
    func noRTX() throws {
        var ssrcs = TestValues.ssrcs
        ssrcs.video?.rtxSSRC = nil
        let (answer, session) = try answer(viewer: ChromiumOffers.whep, publisher: publisher(ChromiumOffers.whip), ssrcs: ssrcs)
        #expect(session.media(of: .video)?.codec.rtxPayloadType == nil && session.media(of: .video)?.localRTXSSRC == nil)
        #expect(answer.media[1].formats == ["108"] && answer.media[1].ssrcGroups.isEmpty)
    }

    @Test("viewer m= lines the publisher does not feed are rejected")
    func unfedSections() throws {
        let audioOnly = try publisher(offer(sessionLines: ["a=group:BUNDLE 0"], media: [opusSection()]))
        let first = try answer(viewer: ChromiumOffers.whep, publisher: audioOnly)
        #expect(first.answer.media.map(\.port) == [40000, 0] && first.answer.bundleMids == ["0"])
        #expect(first.session.media.map(\.kind) == [.audio])

        let twoVideos = offer(sessionLines: ["a=group:BUNDLE 0 1 2"], media: [
            opusSection(direction: "recvonly"), h264Section(["packetization-mode=1;profile-level-id=42e01f"], direction: "recvonly"),
            h264Section(["packetization-mode=1;profile-level-id=42e01f"], direction: "recvonly")])
        let second = try answer(viewer: twoVideos, publisher: publisher(ChromiumOffers.whip))
        #expect(second.answer.media.map(\.port) == [40000, 40000, 0])
    }

    @Test func refusals() throws {
        let source = try publisher(ChromiumOffers.whip)
        let noBundle = #expect(throws: NegotiationError.self) {
            try answer(viewer: removingLines("a=group:BUNDLE", from: ChromiumOffers.whep), publisher: source)
        }
        #expect(noBundle?.status == 422)
        let sendOnly = #expect(throws: NegotiationError.self) {
            try answer(viewer: ChromiumOffers.whip, publisher: source)
        }
        #expect(sendOnly == .unacceptable("the offer receives none of the stream's media (audio, video) in its BUNDLE group"))
        let noPassword = #expect(throws: NegotiationError.self) {
            try answer(viewer: removingLines("a=ice-pwd", from: ChromiumOffers.whep), publisher: source)
        }
        #expect(noPassword?.status == 400)
    }
}
