import OnAirSDP
import Testing

@Suite("WHIP ingest refusals carry a status and a reason")
struct IngestErrorTests {
    func refusal(_ text: String) throws -> NegotiationError? {
        let sdp = try SessionDescription.parse(text)
        return #expect(throws: NegotiationError.self) {
            try SDPNegotiator.answerIngest(offer: sdp, local: TestValues.relayTransport)
        }
    }

    @Test func videoWithoutH264() throws {
        let text = offer(media: [opusSection(), [
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99"] + transportLines + [
            "a=sendonly", "a=rtpmap:96 VP8/90000", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
            "a=rtpmap:98 VP9/90000", "a=fmtp:98 profile-id=0", "a=rtpmap:99 rtx/90000", "a=fmtp:99 apt=98"]])
        #expect(try refusal(text) == NegotiationError(
            status: 422, reason: "m-line 1 (video, mid 1): no H.264 with packetization-mode=1 offered (offered: VP8, VP9)"))
    }

    @Test func h264OnlyInPacketizationMode0() throws {
        let text = offer(media: [opusSection(), h264Section(["profile-level-id=42e01f", "packetization-mode=0;profile-level-id=42001f"])])
        #expect(try refusal(text) == .unacceptable(
            "m-line 1 (video, mid 1): no H.264 with packetization-mode=1 offered (offered: H264 (42e01f, packetization-mode=0), H264 (42001f, packetization-mode=0))"))
    }

    @Test func h264WithUnsupportedProfileOnly() throws {
        let text = offer(media: [opusSection(), h264Section(["packetization-mode=1;profile-level-id=f4001f"])])
        #expect(try refusal(text)?.status == 422)
    }

    @Test func audioWithoutOpus() throws {
        let text = offer(media: [["m=audio 9 UDP/TLS/RTP/SAVPF 0 8"] + transportLines + ["a=sendonly"],
                                 h264Section(["packetization-mode=1"])])
        #expect(try refusal(text) == .unacceptable("m-line 0 (audio, mid 0): no opus/48000/2 offered (offered: PCMU, PCMA)"))
        let mono = offer(media: [["m=audio 9 UDP/TLS/RTP/SAVPF 111"] + transportLines + ["a=sendonly", "a=rtpmap:111 opus/48000"]])
        #expect(try refusal(mono)?.status == 422)
    }

    @Test func noBundle() throws {
        let text = removingLines("a=group:BUNDLE", from: ChromiumOffers.whip)
        #expect(try refusal(text) == .unacceptable(
            "the offer has no a=group:BUNDLE; the relay carries all media on one transport (RFC 9143)"))
    }

    @Test func missingTransportAttributes() throws {
        #expect(try refusal(removingLines("a=ice-ufrag", from: AiortcOffers.whip)) ==
            .malformed("the offer (mid 0) has no a=ice-ufrag (RFC 8839 §5.4)"))
        #expect(try refusal(removingLines("a=ice-pwd", from: AiortcOffers.whip)) ==
            .malformed("the offer (mid 0) has no a=ice-pwd (RFC 8839 §5.4)"))
        #expect(try refusal(removingLines("a=fingerprint", from: AiortcOffers.whip)) ==
            .malformed("the offer (mid 0) has no a=fingerprint (RFC 8122 §5)"))
        let md5Only = removingLines("a=fingerprint:sha-", from: AiortcOffers.whip)
            .replacing("a=setup:actpass", with: "a=setup:actpass\na=fingerprint:md5 " + (0..<16).map { _ in "00" }.joined(separator: ":"))
        #expect(try refusal(md5Only) == .unacceptable(
            "no supported a=fingerprint hash function (offered: md5; supported: sha-256, sha-384, sha-512, sha-1)"))
    }

    @Test func missingRTCPMux() throws {
        let text = removingLines("a=rtcp-mux", from: ChromiumOffers.whip)
        #expect(try refusal(text) == .unacceptable(
            "m-line 0 (audio, mid 0) has no a=rtcp-mux; the relay multiplexes RTP and RTCP (RFC 8829 §5.1.3)"))
    }

    @Test func missingMid() throws {
        let text = removingLines("a=mid:1", from: AiortcOffers.whip)
        #expect(try refusal(text) == .malformed("m-line 1 (video) has no a=mid (RFC 8829 §5.2.1)"))
    }

    @Test func duplicateMids() throws {
        let text = offer(media: [opusSection(), h264Section(["packetization-mode=1"])]).replacing("a=mid:1", with: "a=mid:0")
        #expect(try refusal(text) == .malformed("two m-lines have a=mid:0 (RFC 5888 §4)"))
    }

    @Test func nothingToReceive() throws {
        let text = offer(media: [opusSection(direction: "recvonly"), h264Section(["packetization-mode=1"], direction: "inactive")])
        #expect(try refusal(text) == .unacceptable("the offer sends no audio or video in its BUNDLE group"))
        let dataOnly = offer(sessionLines: ["a=group:BUNDLE 0"],
                             media: [["m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "a=mid:0"]])
        #expect(try refusal(dataOnly)?.status == 422)
    }

    @Test func statusHelpers() {
        #expect(NegotiationError.malformed("x").status == 400)
        #expect(NegotiationError.unacceptable("x").status == 422)
        #expect(NegotiationError.unacceptable("x").description == "422: x")
    }
}
