import OnAirSDP
import Testing

@Suite("ICE candidate attribute (RFC 8839 §5.1)")
struct ICECandidateTests {
    @Test func chromiumHostUDP() throws {
        let candidate = try ICECandidate(attributeValue:
            "785483222 1 udp 2122194687 127.0.0.1 54147 typ host generation 0 network-id 3 network-cost 50")
        #expect(candidate == ICECandidate(foundation: "785483222", component: 1, transport: "udp", priority: 2122194687,
                                          address: "127.0.0.1", port: 54147, type: .host, generation: 0,
                                          extensions: [.init(name: "network-id", value: "3"),
                                                       .init(name: "network-cost", value: "50")]))
        #expect(candidate.isUDP)
    }

    @Test func chromiumTCPActiveIPv6() throws {
        let candidate = try ICECandidate(attributeValue: "2097656725 1 tcp 1518288127 ::1 9 typ host tcptype active generation 0 network-id 4")
        #expect(candidate.address == "::1" && candidate.port == 9)
        #expect(candidate.tcpType == "active" && !candidate.isUDP)
        #expect(candidate.extensions == [.init(name: "network-id", value: "4")])
    }

    @Test func serverReflexiveAndRelayWithRelatedAddress() throws {
        let srflx = try ICECandidate(attributeValue: "2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 10.0.1.1 rport 8998")
        #expect(srflx.type == .serverReflexive && srflx.transport == "UDP" && srflx.isUDP)
        #expect(srflx.relatedAddress == "10.0.1.1" && srflx.relatedPort == 8998)
        let relay = try ICECandidate(attributeValue:
            "3 1 udp 41885695 203.0.113.5 3478 typ relay raddr 198.51.100.7 rport 54321 generation 0 ufrag abcd")
        #expect(relay.type == .relay && relay.relatedPort == 54321)
        #expect(relay.extensions == [.init(name: "ufrag", value: "abcd")])
    }

    @Test func aiortcAndMDNSAndPrefix() throws {
        let aiortc = try ICECandidate(attributeValue:
            "candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 33317 typ host")
        #expect(aiortc.foundation == "16572de626da4e5384a0ce2d0d93678a")
        #expect(aiortc.description == "candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 33317 typ host")
        let mdns = try ICECandidate(attributeValue: "1 1 udp 2122260223 4f3b8c1e-0b5e-4d59-9a0e-6c2f1d3a9b7e.local 54321 typ host")
        #expect(mdns.address.hasSuffix(".local"))
        let future = try ICECandidate(attributeValue: "1 1 udp 1 10.0.0.1 1 typ newtype")
        #expect(future.type == ICECandidateType(rawValue: "newtype"))
    }

    static let roundTrips = [
        "785483222 1 udp 2122194687 127.0.0.1 54147 typ host generation 0 network-id 3 network-cost 50",
        "4263770306 1 tcp 1518083839 192.0.2.2 9 typ host tcptype active generation 0 network-id 1",
        "2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 10.0.1.1 rport 8998",
        "a+/b 256 udp 0 fd00::2 65535 typ prflx raddr :: rport 0 generation 4294967295 x y",
    ]

    @Test("attribute value round trip", arguments: roundTrips)
    func roundTrip(text: String) throws {
        let candidate = try ICECandidate(attributeValue: text)
        #expect(candidate.attributeValue == text)
        #expect(try ICECandidate(attributeValue: candidate.attributeValue) == candidate)
        #expect(SDPAttribute(candidate).description == "a=candidate:" + text)
    }

    static let malformed: [(String, String)] = [
        ("1 1 udp 1 1.2.3.4 9 typ", "a=candidate needs at least 8 fields (foundation component transport priority address port typ type), found 7"),
        ("1 0 udp 1 1.2.3.4 9 typ host", "a=candidate component \"0\" is not a number 1-256"),
        ("1 257 udp 1 1.2.3.4 9 typ host", "a=candidate component \"257\" is not a number 1-256"),
        ("1 1 udp 4294967296 1.2.3.4 9 typ host", "a=candidate priority \"4294967296\" is not a 32-bit number"),
        ("1 1 udp 1 1.2.3.4 65536 typ host", "a=candidate port \"65536\" is not a number 0-65535"),
        ("1 1 udp 1 1.2.3.4 9 type host", "a=candidate needs \"typ <type>\" after the port"),
        ("1 1 udp 1 1.2.3.4 9 typ host generation", "a=candidate extension \"generation\" has no value"),
        ("1 1 udp 1 1.2.3.4 9 typ srflx raddr 1.1.1.1 rport x", "a=candidate rport \"x\" is not a number 0-65535"),
        ("1 1 udp 1 1.2.3.4 9 typ host generation -1", "a=candidate generation \"-1\" is not a number"),
        ("f*o 1 udp 1 1.2.3.4 9 typ host", "a=candidate foundation \"f*o\" must be 1-32 ice-chars"),
        (String(repeating: "a", count: 33) + " 1 udp 1 1.2.3.4 9 typ host",
         "a=candidate foundation \"\(String(repeating: "a", count: 33))\" must be 1-32 ice-chars"),
    ]

    @Test("malformed candidates say why", arguments: malformed.indices)
    func rejected(index: Int) {
        let (text, reason) = Self.malformed[index]
        let error = #expect(throws: SDPError.self) { try ICECandidate(attributeValue: text) }
        #expect(error?.reason == reason)
    }
}
