import OnAirSDP
import Testing

@Suite("Malformed descriptions are rejected with the line number")
struct SDPParseErrorTests {
    /// A valid description with `line` inserted as line 5 (after t=).
    static func withLine5(_ line: String) -> String {
        ["v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", line, "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0"]
            .joined(separator: "\r\n") + "\r\n"
    }

    static let cases: [(text: String, line: Int?, reason: String)] = [
        ("", nil, "session description is empty"),
        ("\r\n\r\n", nil, "session description is empty"),
        ("o=- 1 2 IN IP4 127.0.0.1\r\n", 1, "the first line must be v=0"),
        ("v=1\r\n", 1, "the first line must be v=0"),
        ("v=0\r\ns=-\r\n", nil, "session description has no o= line"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\n", nil, "session description has no s= line"),
        ("v=0\r\no=- 1 2 IN IP4\r\n", 2,
         "o= needs 6 fields (username sess-id sess-version nettype addrtype address), found 5"),
        ("v=0\r\no=- x 2 IN IP4 1.2.3.4\r\n", 2, "o= sess-id \"x\" is not a number"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\no=- 1 2 IN IP4 1.2.3.4\r\n", 3, "second o= line"),
        ("v=0\r\nhello\r\n", 2, "not a <type>=<value> line"),
        ("v=0\r\nX=1\r\n", 2, "not a <type>=<value> line"),
        (withLine5("q=1"), 5, "unknown line type \"q=\""),
        (withLine5("v=0"), 5, "v= may only be the first line"),
        (withLine5("t=now"), 5, "t= must be two numbers: <start-time> <stop-time>"),
        (withLine5("b=AS"), 5, "b= must be <bwtype>:<number>"),
        (withLine5("c=IN IP4"), 5, "c= needs 3 fields (nettype addrtype address), found 2"),
        (withLine5("a=:x"), 5, "attribute name \"\" is not a token"),
        (withLine5("a=group"), 5, "a=group needs a value"),
        (withLine5("a=fingerprint:sha-256 AB:CD"), 5, "a=fingerprint sha-256 needs 32 bytes, found 2"),
        (withLine5("a=fingerprint:sha-256 XY:CD"), 5, "a=fingerprint value \"XY:CD\" is not hex"),
        (withLine5("a=setup:client"), 5, "a=setup must be active, passive, actpass or holdconn, not \"client\""),
        (withLine5("a=ice-ufrag:"), 5, "a=ice-ufrag needs a value without spaces"),
        (withLine5("a=rtpmap:200 opus/48000/2"), 5, "a=rtpmap payload type \"200\" is not a number 0-127"),
        (withLine5("a=rtpmap:111 opus"), 5, "a=rtpmap encoding \"opus\" must be <name>/<clock rate>[/<channels>]"),
        (withLine5("a=rtpmap:111 opus/0/2"), 5, "a=rtpmap clock rate \"0\" is not a positive number"),
        (withLine5("a=rtpmap:111 opus/48000/x"), 5, "a=rtpmap channel count \"x\" is not a positive number"),
        (withLine5("a=fmtp:96 =1"), 5, "a=fmtp parameter \"=1\" has no name"),
        (withLine5("a=rtcp-fb:96"), 5, "a=rtcp-fb needs a feedback type after the payload type"),
        (withLine5("a=extmap:0 urn:x"), 5, "a=extmap id \"0\" is not a number 1-4351"),
        (withLine5("a=extmap:1/up urn:x"), 5, "a=extmap direction \"up\" is not a media direction"),
        (withLine5("a=ssrc:-1 cname:x"), 5, "a=ssrc id \"-1\" is not a 32-bit number"),
        (withLine5("a=ssrc:4294967296 cname:x"), 5, "a=ssrc id \"4294967296\" is not a 32-bit number"),
        (withLine5("a=ssrc-group:FID 1 x"), 5, "a=ssrc-group SSRC \"x\" is not a 32-bit number"),
        (withLine5("a=msid:a b c"), 5, "a=msid must be <stream id> [<track id>]"),
        (withLine5("a=rid:h sideways"), 5, "a=rid direction must be send or recv, not \"sideways\""),
        (withLine5("a=simulcast:send h;m recv"), 5, "a=simulcast must be send <list> and/or recv <list>"),
        (withLine5("a=simulcast:send h send l"), 5, "a=simulcast direction \"send\" must be send or recv, once each"),
        (withLine5("a=candidate:1 1 udp 1 1.2.3.4 9 host"), 5,
         "a=candidate needs at least 8 fields (foundation component transport priority address port typ type), found 7"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\ns=-\r\nm=audio\r\n", 4, "m= needs <media> <port> <proto> <fmt> ..., found 1 fields"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\ns=-\r\nm=audio 70000 RTP/AVP 0\r\n", 4, "m= port \"70000\" is not a number 0-65535"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\ns=-\r\nm=audio 9 RTP/AVP 0\r\nt=0 0\r\n", 5,
         "t= is not allowed inside a media description"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\ns=-\r\nm=audio 9 RTP/AVP 0\r\nc=IN IP4 1.1.1.1\r\nc=IN IP4 1.1.1.1\r\n", 6,
         "second c= line in one media description"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\ns=-\r\nr=1d\r\n", 4, "r= line before any t= line"),
        ("v=0\r\no=- 1 2 IN IP4 1.2.3.4\r\ns=-\r\na=x\ry\r\n", 4, "line holds a CR or NUL byte"),
    ]

    @Test("each malformed line is reported", arguments: cases.indices)
    func rejected(index: Int) {
        let (text, line, reason) = Self.cases[index]
        let error = #expect(throws: SDPError.self) { try SessionDescription.parse(text) }
        #expect(error?.line == line)
        #expect(error?.reason == reason)
    }

    @Test func errorDescriptionNamesTheLine() {
        #expect(SDPError(line: 7, "bad").description == "line 7: bad")
        #expect(SDPError("bad").description == "bad")
        #expect(NegotiationError(SDPError(line: 3, "bad")) == NegotiationError(status: 400, reason: "malformed SDP: line 3: bad"))
    }

    @Test("a broken line deep inside a real offer is found by number")
    func lineNumberInRealOffer() throws {
        var lines = crlf(ChromiumOffers.whip).split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.firstIndex(of: "a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"))
        lines[index] = "a=fmtp:1080 profile-level-id=42e01f"
        let error = #expect(throws: SDPError.self) { try SessionDescription.parse(lines.joined(separator: "\r\n")) }
        #expect(error?.line == index + 1)
        #expect(error?.reason == "a=fmtp payload type \"1080\" is not a number 0-127")
    }

    @Test("unknown attributes and non-RTP formats are kept, not rejected")
    func lenientWhereTheRFCIs() throws {
        let text = Self.withLine5("a=x-custom:anything goes here") +
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\na=sctp-port:5000\r\na=fmtp:webrtc-datachannel x\r\n"
        let sdp = try SessionDescription.parse(text)
        #expect(sdp.value(of: "x-custom") == "anything goes here")
        #expect(sdp.media[1].kind == .application && !sdp.media[1].isRTP)
        #expect(sdp.media[1].formats == ["webrtc-datachannel"])
        #expect(sdp.serialize() == text)
    }
}
