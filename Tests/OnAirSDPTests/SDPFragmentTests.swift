import OnAirSDP
import Testing

@Suite("Trickle ICE and ICE restart fragments (RFC 8840, RFC 9725 §4.3)")
struct SDPFragmentTests {
    /// The shape of RFC 9725's trickle example: credentials at session level, one m= section
    /// per mid with its candidates and end-of-candidates.
    static let trickle = """
        a=ice-ufrag:EsAw
        a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y
        m=audio 9 UDP/TLS/RTP/SAVPF 0
        a=mid:0
        a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw network-id 1
        a=candidate:3471623853 1 udp 2122194687 198.51.100.2 61765 typ host generation 0 ufrag EsAw network-id 2
        a=candidate:473322822 1 tcp 1518280447 192.0.2.1 9 typ host tcptype active generation 0 ufrag EsAw network-id 1
        a=end-of-candidates
        """

    @Test func trickleFragment() throws {
        let fragment = try SDPFragment.parse(crlf(Self.trickle))
        #expect(fragment.iceUfrag == "EsAw" && fragment.icePassword == "bP+XJMM09aR8AiX1jdukzR6Y")
        #expect(fragment.announcedUfrag == "EsAw")
        #expect(fragment.candidates(forMid: "0").map(\.port) == [61764, 61765, 9])
        #expect(fragment.candidates(forMid: "1").isEmpty)
        #expect(fragment.allCandidates.allSatisfy { $0.mid == "0" })
        #expect(fragment.isEndOfCandidates)
        #expect(fragment.serialize() == crlf(Self.trickle))
        #expect(try SDPFragment.parse(Self.trickle) == fragment)
    }

    @Test("an ICE restart carries new credentials and options, per m= section")
    func iceRestart() throws {
        let text = """
            a=ice-options:trickle ice2
            a=group:BUNDLE 0 1
            m=audio 9 UDP/TLS/RTP/SAVPF 111
            a=mid:0
            a=ice-ufrag:New1
            a=ice-pwd:newpasswordnewpassword1
            m=video 9 UDP/TLS/RTP/SAVPF 96
            a=mid:1
            """
        let fragment = try SDPFragment.parse(text)
        #expect(fragment.iceOptions == ["trickle", "ice2"] && fragment.bundleMids == ["0", "1"])
        #expect(fragment.iceUfrag == nil && fragment.announcedUfrag == "New1")
        #expect(fragment.announcedPassword == "newpasswordnewpassword1")
        #expect(fragment.iceUfrag(for: fragment.media[0]) == "New1" && fragment.iceUfrag(for: fragment.media[1]) == nil)
        #expect(!fragment.isEndOfCandidates && fragment.allCandidates.isEmpty)
    }

    @Test func builtFragmentRoundTrips() throws {
        let candidate = try ICECandidate(attributeValue: "1 1 udp 2130706431 127.0.0.1 40000 typ host")
        let fragment = SDPFragment(iceUfrag: "rlyU", icePassword: "relaypasswordrelaypassword",
                                   candidates: [(mid: "0", kind: .audio, candidates: [candidate]), (mid: "1", kind: .video, candidates: [])],
                                   endOfCandidates: true)
        let text = fragment.serialize()
        #expect(text == "a=ice-ufrag:rlyU\r\na=ice-pwd:relaypasswordrelaypassword\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n" +
            "a=candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host\r\na=end-of-candidates\r\n" +
            "m=video 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:1\r\na=end-of-candidates\r\n")
        #expect(try SDPFragment.parse(text) == fragment)
        #expect(SDPFragment().serialize() == "")
        #expect(try SDPFragment.parse("") == SDPFragment())
    }

    @Test func malformedFragments() {
        let cases: [(String, Int?, String)] = [
            ("a=ice-ufrag:x\r\nv=0\r\n", 2, "an SDP fragment holds only a= and m= lines, not v= (RFC 8840 §4.4)"),
            ("a=ice-ufrag:x\r\nm=audio 9 RTP/AVP 0\r\nc=IN IP4 1.2.3.4\r\n", 3,
             "an SDP fragment holds only a= and m= lines, not c= (RFC 8840 §4.4)"),
            ("m=audio 9 RTP/AVP 0\r\na=mid:0\r\na=candidate:1 1 udp 1 1.2.3.4 9 typ\r\n", 3,
             "a=candidate needs at least 8 fields (foundation component transport priority address port typ type), found 7"),
            ("a=ice-pwd\r\n", 1, "a=ice-pwd needs a value without spaces"),
            ("m=audio x RTP/AVP 0\r\n", 1, "m= port \"x\" is not a number 0-65535"),
        ]
        for (text, line, reason) in cases {
            let error = #expect(throws: SDPError.self) { try SDPFragment.parse(text) }
            #expect(error?.line == line && error?.reason == reason, "\(text)")
        }
    }
}
