import OnAirSDP
import Testing

@Suite("Typed attribute values")
struct SDPAttributeTests {
    @Test func attributeLineSplitsAtFirstColon() throws {
        let sdp = try SessionDescription.parse(SDPParseErrorTests.withLine5("a=msid-semantic: WMS a:b"))
        #expect(sdp.attributes == [SDPAttribute("msid-semantic", " WMS a:b")])
        #expect(SDPAttribute("rtcp-mux").description == "a=rtcp-mux")
        #expect(SDPAttribute("x", "").description == "a=x:")
    }

    @Test func rtpMapWithAndWithoutChannels() throws {
        let opus = try RTPMap(attributeValue: "111 opus/48000/2")
        #expect(opus == RTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(opus.isEncoding("OPUS"))
        let h264 = try RTPMap(attributeValue: "96 H264/90000")
        #expect(h264.channels == nil && h264.attributeValue == "96 H264/90000")
    }

    @Test func formatParametersKeepOrderAndTolerateSpaces() throws {
        let fmtp = try FormatParameters(attributeValue: "102 level-asymmetry-allowed=1; packetization-mode=1;profile-level-id=42e01f;")
        #expect(fmtp.parameters.map(\.name) == ["level-asymmetry-allowed", "packetization-mode", "profile-level-id"])
        #expect(fmtp.value(for: "PROFILE-LEVEL-ID") == "42e01f")
        #expect(fmtp.attributeValue == "102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        let red = try FormatParameters(attributeValue: "63 111/111")
        #expect(red.parameters == [FormatParameter("111/111", nil)] && red.attributeValue == "63 111/111")
        #expect(try FormatParameters(attributeValue: "97 apt=96").value(for: "apt") == "96")
    }

    @Test func rtcpFeedbackWildcardAndParameter() throws {
        let all = try RTCPFeedback(attributeValue: "* transport-cc")
        #expect(all.payloadType == nil && all.feedback == "transport-cc" && all.attributeValue == "* transport-cc")
        let fir = try RTCPFeedback(attributeValue: "102 ccm fir")
        #expect(fir == RTCPFeedback(payloadType: 102, type: "ccm", parameter: "fir"))
        #expect(RTCPFeedback(payloadType: 96, feedback: "nack pli").attributeValue == "96 nack pli")
    }

    @Test func extMapDirectionAndAttributes() throws {
        let plain = try ExtMap(attributeValue: "3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01")
        #expect(plain.id == 3 && plain.direction == nil && plain.uri == RTPHeaderExtensionURI.transportWideCC)
        let directed = try ExtMap(attributeValue: "2/sendonly urn:x:y attr1 attr2")
        #expect(directed.direction == .sendonly && directed.extensionAttributes == "attr1 attr2")
        #expect(directed.attributeValue == "2/sendonly urn:x:y attr1 attr2")
    }

    @Test func sourcesAndGroups() throws {
        let msid = try SSRCAttribute(attributeValue: "3246587465 msid:f476401b ec48e37d")
        #expect(msid == SSRCAttribute(ssrc: 3246587465, name: "msid", value: "f476401b ec48e37d"))
        #expect(try SSRCAttribute(attributeValue: "1 cname:a:b").value == "a:b")
        #expect(try SSRCGroup(attributeValue: "SIM 1 2 3").ssrcs == [1, 2, 3])
        #expect(try SDPGroup(attributeValue: "BUNDLE 0 1 2").mids == ["0", "1", "2"])
        #expect(try SDPGroup(attributeValue: "LS").mids.isEmpty)
        #expect(try MediaStreamID(attributeValue: "- track").streamID == "-")
        #expect(try MediaStreamID(attributeValue: "stream").trackID == nil)
    }

    @Test func ridAndSimulcast() throws {
        let rid = try RIDDescription(attributeValue: "h send pt=96,97;max-width=1280;max-height=720")
        #expect(rid.id == "h" && rid.direction == .send)
        #expect(rid.payloadTypes == [96, 97])
        #expect(rid.parameters.value(for: "max-width") == "1280")
        #expect(rid.attributeValue == "h send pt=96,97;max-width=1280;max-height=720")
        #expect(try RIDDescription(attributeValue: "q recv").payloadTypes == nil)

        let simulcast = try SimulcastDescription(attributeValue: "send h;~m,m2;l recv r")
        #expect(simulcast.send == [[.init(rid: "h")], [.init(rid: "m", paused: true), .init(rid: "m2")], [.init(rid: "l")]])
        #expect(simulcast.receive == [[.init(rid: "r")]])
        #expect(simulcast.attributeValue == "send h;~m,m2;l recv r")
        #expect(SimulcastDescription.rids(in: simulcast.send) == ["h", "m", "m2", "l"])
        #expect(try SimulcastDescription(attributeValue: "recv 1;2").attributeValue == "recv 1;2")
        #expect(throws: SDPError.self) { try SimulcastDescription(attributeValue: "send h;;l") }
    }

    @Test func fingerprintNormalisesCaseAndRendersUpperHex() throws {
        let text = "SHA-1 4a:ad:b9:b1:3f:82:18:3b:54:02:12:df:3e:5d:49:6b:19:e5:7c:ab"
        let fingerprint = try DTLSFingerprint(attributeValue: text)
        #expect(fingerprint.algorithm == "sha-1" && fingerprint.bytes.count == 20)
        #expect(fingerprint.attributeValue == "sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB")
        // Unknown hash functions are kept with any length (RFC 8122 §5 allows new ones).
        #expect(try DTLSFingerprint(attributeValue: "sha3-256 AB:CD").bytes == [0xAB, 0xCD])
    }

    @Test func directionsMirror() {
        #expect(MediaDirection.sendonly.reversed == .recvonly)
        #expect(MediaDirection.recvonly.reversed == .sendonly)
        #expect(MediaDirection.sendrecv.reversed == .sendrecv)
        #expect(MediaDirection.sendonly.sends && !MediaDirection.sendonly.receives)
        #expect(!MediaDirection.inactive.sends && !MediaDirection.inactive.receives)
    }
}
