import OnAirSDP
import OnAirWire
import Testing

@Suite("SessionDescription parse and serialize (RFC 8866)")
struct SessionDescriptionTests {
    static let fixtures = [ChromiumOffers.whip, ChromiumOffers.whep, AiortcOffers.whip, AiortcOffers.whep,
                           AnswersToOurOffer.chromium, AnswersToOurOffer.aiortc]

    @Test("captured CRLF text serializes back byte for byte", arguments: fixtures.indices)
    func exactRoundTrip(index: Int) throws {
        let text = crlf(Self.fixtures[index])
        let parsed = try SessionDescription.parse(text)
        #expect(parsed.serialize() == text)
        #expect(try SessionDescription.parse(parsed.serialize()) == parsed)
    }

    @Test("LF-only text parses to the same description", arguments: fixtures.indices)
    func lineFeedOnly(index: Int) throws {
        let fromLF = try SessionDescription.parse(Self.fixtures[index])
        #expect(fromLF == (try SessionDescription.parse(crlf(Self.fixtures[index]))))
    }

    @Test func chromiumWHIPSessionLevel() throws {
        let sdp = try SessionDescription.parse(crlf(ChromiumOffers.whip))
        #expect(sdp.version == 0)
        #expect(sdp.origin == SDPOrigin(username: "-", sessionID: "934292052132633713", sessionVersion: "2",
                                        networkType: "IN", addressType: "IP4", address: "127.0.0.1"))
        #expect(sdp.sessionName == "-")
        #expect(sdp.timing == [SDPTiming(start: 0, stop: 0)])
        #expect(sdp.bundleMids == ["0", "1"])
        #expect(sdp.hasAttribute("extmap-allow-mixed"))
        #expect(sdp.value(of: "msid-semantic") == " WMS f476401b-af64-48b6-be67-7e87da5f52a5")
        #expect(!sdp.iceLite)
        #expect(sdp.media.map(\.kind) == [.audio, .video])
    }

    @Test func chromiumWHIPAudioSection() throws {
        let audio = try SessionDescription.parse(ChromiumOffers.whip).media[0]
        #expect(audio.port == 54147 && audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.connection == SDPConnection(networkType: "IN", addressType: "IP4", address: "127.0.0.1"))
        #expect(audio.mid == "0")
        #expect(audio.direction == .sendonly)
        #expect(audio.iceUfrag == "j1Fp" && audio.icePassword == "NUmvpjscT4PpMPa55njelck8")
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.setup == .actpass)
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.fingerprints == [DTLSFingerprint(algorithm: "sha-256", bytes: Hex.decode(
            "40F44C37C3F5E604A7A27803F7DCEF2055179DA131697B880ACD2DA00AA7AC51")!)])
        #expect(audio.rtpMap(for: 111) == RTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.rtpMap(for: 0) == RTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000))
        #expect(audio.formatParameters(for: 111) == [FormatParameter("minptime", "10"), FormatParameter("useinbandfec", "1")])
        #expect(audio.formatParameters(for: 63) == [FormatParameter("111/111", nil)])
        #expect(audio.rtcpFeedback(for: 111) == [RTCPFeedback(payloadType: 111, type: "transport-cc")])
        #expect(audio.extMaps.first == ExtMap(id: 1, uri: "urn:ietf:params:rtp-hdrext:ssrc-audio-level"))
        #expect(audio.msids == [MediaStreamID(streamID: "f476401b-af64-48b6-be67-7e87da5f52a5",
                                              trackID: "ec48e37d-8303-42ae-999d-e095e0118fe7")])
        #expect(audio.primarySSRC == 3246587465)
        #expect(audio.cname(for: 3246587465) == "UAn/QKdnusDlFrhW")
        #expect(audio.candidates.count == 8)
        #expect(!audio.endOfCandidates)
    }

    @Test func chromiumWHIPVideoSection() throws {
        let video = try SessionDescription.parse(ChromiumOffers.whip).media[1]
        #expect(video.payloadTypes.count == 23)
        #expect(video.rtpMaps.filter { $0.isEncoding("h264") }.map(\.payloadType) == [102, 104, 108, 114, 116, 39])
        #expect(video.rtxPayloadType(for: 108) == 109)
        #expect(video.rtxPayloadType(for: 45) == 46)
        #expect(video.rtxPayloadType(for: 120) == nil)
        #expect(video.rtcpFeedback(for: 108).map(\.feedback) == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [1872218249, 3080236885])])
        #expect(video.primarySSRC == 1872218249)
        #expect(video.rtxSSRC(for: 1872218249) == 3080236885)
        #expect(video.ssrcAttributes.count == 4)
        #expect(video.extMaps.map(\.id) == [14, 2, 13, 3, 5, 6, 7, 8, 4, 10, 11])
        let h264 = try #require(H264FormatParameters(video.formatParameters(for: 116)))
        #expect(h264.profileLevelID.profile == .main && h264.packetizationMode == 1 && h264.levelAsymmetryAllowed)
    }

    @Test func aiortcOfferSpecifics() throws {
        let sdp = try SessionDescription.parse(AiortcOffers.whip)
        #expect(sdp.origin.sessionID == "4004312838")
        #expect(sdp.value(of: "msid-semantic") == "WMS *")
        let audio = sdp.media[0], video = sdp.media[1]
        #expect(audio.endOfCandidates && video.endOfCandidates)
        #expect(audio.fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(audio.fingerprints.map(\.bytes.count) == [32, 48, 64])
        #expect(audio.rtpMap(for: 96)?.channels == 2)
        #expect(video.rtcpFeedback(for: 101).map(\.feedback) == ["nack", "nack pli", "goog-remb"])
        #expect(video.candidates.first?.foundation == "16572de626da4e5384a0ce2d0d93678a")
        #expect(!audio.rtcpReducedSize)
    }

    @Test("session-level transport attributes are defaults for every m= line")
    func sessionLevelDefaults() throws {
        var text = removingLines("a=ice-ufrag", "a=ice-pwd", "a=fingerprint", "a=setup", from: AiortcOffers.whip)
        text = replacingLine("a=msid-semantic:WMS *",
                             with: "a=msid-semantic:WMS *\na=ice-ufrag:sess\na=ice-pwd:sessionpasswordsessionpw\na=setup:passive\na=sendonly",
                             in: text)
        let sdp = try SessionDescription.parse(text)
        let video = sdp.media[1]
        #expect(video.iceUfrag == nil)
        #expect(sdp.iceUfrag(for: video) == "sess")
        #expect(sdp.icePassword(for: video) == "sessionpasswordsessionpw")
        #expect(sdp.setup(for: video) == .passive)
        #expect(sdp.fingerprints(for: video).isEmpty)
        #expect(sdp.direction(for: video) == .sendonly)
        var own = video
        own.append("ice-ufrag", "mine")
        #expect(sdp.iceUfrag(for: own) == "mine")
    }

    @Test func builtDescriptionSerializesInRFCOrder() throws {
        var media = MediaDescription(kind: .video, port: 9, formats: ["96"], connection: SDPConnection(address: "::1"),
                                     bandwidths: [SDPBandwidth(type: "AS", value: 2500)])
        media.append(RTPMap(payloadType: 96, encodingName: "H264", clockRate: 90000))
        media.append("rtcp-mux")
        let sdp = SessionDescription(origin: SDPOrigin(sessionID: "42"), information: "info", uri: "http://x",
                                     emails: ["a@b"], phones: ["+1"], timing: [SDPTiming(repeats: ["7d 1h 0 25h"])],
                                     attributes: [SDPAttribute("ice-lite")], media: [media])
        let expected = ["v=0", "o=- 42 2 IN IP4 127.0.0.1", "s=-", "i=info", "u=http://x", "e=a@b", "p=+1", "t=0 0",
                        "r=7d 1h 0 25h", "a=ice-lite", "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP6 ::1", "b=AS:2500",
                        "a=rtpmap:96 H264/90000", "a=rtcp-mux"].joined(separator: "\r\n") + "\r\n"
        #expect(sdp.serialize() == expected)
        #expect(try SessionDescription.parse(expected) == sdp)
    }

    @Test func parsesUTF8BytesAndRejectsInvalidUTF8() throws {
        let bytes = Array(crlf(AiortcOffers.whep).utf8)
        #expect(try SessionDescription.parse(utf8: bytes) == (try SessionDescription.parse(AiortcOffers.whep)))
        let error = #expect(throws: SDPError.self) { try SessionDescription.parse(utf8: [0x76, 0x3D, 0x30, 0x0A, 0xFF]) }
        #expect(error?.reason == "session description is not valid UTF-8")
    }
}
