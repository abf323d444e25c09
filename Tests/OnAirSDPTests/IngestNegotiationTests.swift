import OnAirSDP
import OnAirWire
import Testing

@Suite("WHIP ingest answers (RFC 9725)")
struct IngestNegotiationTests {
    func answer(_ text: String) throws -> (answer: SessionDescription, session: NegotiatedSession) {
        try SDPNegotiator.answerIngest(offer: SessionDescription.parse(text), local: TestValues.relayTransport)
    }

    @Test func chromiumOffer() throws {
        let (answer, session) = try answer(crlf(ChromiumOffers.whip))
        let audio = try #require(session.media(of: .audio)), video = try #require(session.media(of: .video))
        #expect(audio.codec == NegotiatedCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2,
                                               fmtp: [FormatParameter("minptime", "10"), FormatParameter("useinbandfec", "1")],
                                               rtcpFeedback: ["transport-cc"], rtxPayloadType: nil))
        #expect(video.codec == NegotiatedCodec(payloadType: 108, name: "H264", clockRate: 90000,
                                               fmtp: [FormatParameter("level-asymmetry-allowed", "1"),
                                                      FormatParameter("packetization-mode", "1"),
                                                      FormatParameter("profile-level-id", "42e01f")],
                                               rtcpFeedback: ["nack", "nack pli", "ccm fir", "transport-cc", "goog-remb"],
                                               rtxPayloadType: 109))
        #expect(audio.extensions == [1: RTPHeaderExtensionURI.audioLevel, 2: RTPHeaderExtensionURI.absSendTime,
                                     3: RTPHeaderExtensionURI.transportWideCC, 4: RTPHeaderExtensionURI.mid])
        #expect(video.extensions == [2: RTPHeaderExtensionURI.absSendTime, 3: RTPHeaderExtensionURI.transportWideCC,
                                     4: RTPHeaderExtensionURI.mid])
        #expect(audio.remoteSSRC == 3246587465 && audio.remoteRTXSSRC == nil && audio.remoteCNAME == "UAn/QKdnusDlFrhW")
        #expect(video.remoteSSRC == 1872218249 && video.remoteRTXSSRC == 3080236885 && video.rids.isEmpty)
        #expect(session.remoteUfrag == "j1Fp" && session.remotePassword == "NUmvpjscT4PpMPa55njelck8")
        #expect(session.remoteFingerprint.bytes == Hex.decode("40F44C37C3F5E604A7A27803F7DCEF2055179DA131697B880ACD2DA00AA7AC51"))
        #expect(session.localSetup == .passive)
        #expect(session.remoteCandidates.count == 8 && !session.remoteEndOfCandidates && !session.remoteICELite)
        #expect(session.bundleMids == ["0", "1"])

        #expect(answer.bundleMids == ["0", "1"] && answer.iceLite)
        for media in answer.media {
            #expect(media.direction == .recvonly && media.rtcpMux && media.rtcpReducedSize)
            #expect(media.iceUfrag == "rlyU" && media.icePassword == "relaypasswordrelaypassword")
            #expect(media.fingerprints == [TestValues.fingerprint] && media.setup == .passive)
            #expect(media.port == 40000 && media.connection == SDPConnection(address: "127.0.0.1"))
        }
        #expect(answer.media[0].candidates == [TestValues.relayCandidate] && answer.media[0].endOfCandidates)
        #expect(answer.media[1].candidates.isEmpty)
        #expect(answer.media[1].formats == ["108", "109"])
        #expect(answer.media[1].formatParameters(for: 109) == [FormatParameter("apt", "108")])
        #expect(try SessionDescription.parse(answer.serialize()) == answer)
    }

    @Test func aiortcOffer() throws {
        let (answer, session) = try answer(AiortcOffers.whip)
        let audio = try #require(session.media(of: .audio)), video = try #require(session.media(of: .video))
        #expect(audio.codec.payloadType == 96 && audio.codec.fmtp.isEmpty && audio.codec.rtcpFeedback.isEmpty)
        #expect(audio.extensions == [1: RTPHeaderExtensionURI.mid, 2: RTPHeaderExtensionURI.audioLevel])
        #expect(video.codec.payloadType == 101 && video.codec.rtxPayloadType == 102)
        #expect(video.codec.h264?.profileLevelID.hexString == "42e01f")
        #expect(video.codec.rtcpFeedback == ["nack", "nack pli", "goog-remb"])
        #expect(video.extensions == [1: RTPHeaderExtensionURI.mid, 3: RTPHeaderExtensionURI.absSendTime])
        #expect(video.remoteSSRC != nil && video.remoteRTXSSRC != nil && video.remoteCNAME != nil)
        #expect(session.remoteEndOfCandidates && session.remoteCandidates.count == 1)
        #expect(session.remoteFingerprint.algorithm == "sha-256")
        #expect(answer.media.allSatisfy { !$0.rtcpReducedSize })
    }

    @Test("H.264 is chosen by profile, not by offer order")
    func profilePreference() throws {
        let video = try #require(try answer(ChromiumOffers.whipHighFirst).session.media(of: .video))
        #expect(video.codec.payloadType == 108 && video.codec.rtxPayloadType == 109)
        #expect(video.codec.rtcpFeedback == ["nack", "nack pli", "ccm fir", "transport-cc", "goog-remb"])

        let table: [([String], String)] = [
            (["packetization-mode=1;profile-level-id=64001f", "packetization-mode=1;profile-level-id=42001f"], "42001f"),
            (["packetization-mode=1;profile-level-id=64001f", "packetization-mode=1;profile-level-id=4d0032"], "4d0032"),
            (["packetization-mode=1;profile-level-id=64001f", "packetization-mode=1;profile-level-id=640c1f"], "640c1f"),
            (["packetization-mode=1;profile-level-id=640028"], "640028"),
            (["packetization-mode=1;profile-level-id=42e00b", "packetization-mode=1;profile-level-id=42c034"], "42e00b"),
            (["packetization-mode=0;profile-level-id=42e01f", "packetization-mode=1;profile-level-id=4d001f"], "4d001f"),
            (["packetization-mode=1"], "42000a"),
        ]
        for (fmtps, expected) in table {
            let session = try answer(offer(media: [opusSection(), h264Section(fmtps)])).session
            #expect(session.media(of: .video)?.codec.h264?.profileLevelID.hexString == expected, "\(fmtps)")
        }
    }

    @Test func simulcastIsAnsweredWithRecvRids() throws {
        let (answer, session) = try answer(ChromiumOffers.whipSimulcast)
        let video = try #require(session.media(of: .video))
        #expect(video.rids == ["h", "m", "l"] && video.remoteSSRC == nil)
        #expect(video.extensions[10] == RTPHeaderExtensionURI.rtpStreamID)
        #expect(video.extensions[11] == RTPHeaderExtensionURI.repairedRTPStreamID)
        let section = answer.media[1]
        #expect(section.rids == [RIDDescription(id: "h", direction: .recv), RIDDescription(id: "m", direction: .recv),
                                 RIDDescription(id: "l", direction: .recv)])
        #expect(section.simulcast?.attributeValue == "recv h;m;l")
        #expect(session.media(of: .audio)?.extensions[10] == nil)
    }

    @Test("OBS Studio's simulcast (rids 0;1;2, no a=ssrc lines): every layer is answered, or OBS gives up")
    func obsSimulcastIsAnsweredWithEveryLayer() throws {
        let offer = ChromiumOffers.whipSimulcast
            .replacing("a=rid:h send", with: "a=rid:0 send").replacing("a=rid:m send", with: "a=rid:1 send")
            .replacing("a=rid:l send", with: "a=rid:2 send").replacing("a=simulcast:send h;m;l", with: "a=simulcast:send 0;1;2")
        #expect(!offer.contains("a=ssrc:") || !offer.split(separator: "m=video")[1].contains("a=ssrc:"))
        let (answer, session) = try answer(offer)
        #expect(session.media(of: .video)?.rids == ["0", "1", "2"])
        let section = answer.media[1]
        #expect(section.rids == ["0", "1", "2"].map { RIDDescription(id: $0, direction: .recv) })
        #expect(section.simulcast?.attributeValue == "recv 0;1;2")
    }

    @Test("DTLS role: actpass and active make us passive, passive makes us active (RFC 8842 §5)")
    func setupRoles() throws {
        for (offered, expected) in [("actpass", DTLSSetupRole.passive), ("active", .passive), ("passive", .active)] {
            let text = AiortcOffers.whip.replacing("a=setup:actpass", with: "a=setup:\(offered)")
            let (answer, session) = try answer(text)
            #expect(session.localSetup == expected)
            #expect(answer.media.allSatisfy { $0.setup == expected.setupAttribute })
        }
        let error = #expect(throws: NegotiationError.self) {
            try answer(AiortcOffers.whip.replacing("a=setup:actpass", with: "a=setup:holdconn"))
        }
        #expect(error == .unacceptable("a=setup:holdconn offers no DTLS connection"))
    }

    @Test("data channels and m= lines outside BUNDLE are rejected with port 0")
    func rejectedSections() throws {
        let dataChannel = ["m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:$MID",
                           "a=sctp-port:5000"]
        let text = offer(sessionLines: ["a=group:BUNDLE 0 1 2"],
                         media: [opusSection(), dataChannel, h264Section(["packetization-mode=1"]), opusSection()])
        let (answer, session) = try answer(text)
        #expect(answer.media.map(\.port) == [40000, 0, 40000, 0])
        #expect(answer.media[1].kind == .application && answer.media[1].formats == ["webrtc-datachannel"])
        #expect(answer.media[1].mid == "1" && answer.media[3].mid == "3")
        #expect(answer.bundleMids == ["0", "2"] && session.bundleMids == ["0", "2"])
        #expect(session.media.map(\.mid) == ["0", "2"])
    }

    @Test("an m= line that only receives is rejected; a sendrecv one is answered recvonly")
    func directions() throws {
        let text = offer(media: [opusSection(direction: "recvonly"), h264Section(["packetization-mode=1"], direction: "sendrecv")])
        let (answer, session) = try answer(text)
        #expect(answer.media[0].port == 0 && answer.media[1].direction == .recvonly)
        #expect(session.media.map(\.kind) == [.video])
    }

    @Test("candidates go on the first bundled m= line, even when it is not the first m= line")
    func candidatesOnTaggedSection() throws {
        let text = offer(sessionLines: ["a=group:BUNDLE 1 0"], media: [opusSection(), h264Section(["packetization-mode=1"])])
        let (answer, _) = try answer(text)
        #expect(answer.bundleMids == ["1", "0"])
        #expect(answer.media[1].candidates.count == 1 && answer.media[0].candidates.isEmpty)
    }
}
