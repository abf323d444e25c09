import OnAirSTUN
import OnAirWire
import Testing

@testable import OnAirBroadcast

@Suite("ICE servers from Link headers (RFC 9725 §4.6, RFC 8288 §3) and the relayed-pair alias")
struct ICEServerLinkTests {
    @Test("the relay's own format: a STUN link, a TURN link with quoted credentials")
    func relayFormat() {
        let fields = [
            #"<stun:127.0.0.1:3478>; rel="ice-server""#,
            #"<turn:127.0.0.1:3478?transport=udp>; rel="ice-server"; username="1700000000:42"; "#
                + #"credential="q/U+b4s=="; credential-type="password""#,
        ]
        #expect(LinkHeader.iceServers(fields) == [
            ICEServer(url: "stun:127.0.0.1:3478"),
            ICEServer(url: "turn:127.0.0.1:3478?transport=udp", username: "1700000000:42", credential: "q/U+b4s=="),
        ])
        #expect(LinkHeader.iceServers(fields)[1].turnURI == TURNServerURI(host: "127.0.0.1", port: 3478, transport: .udp))
        #expect(LinkHeader.iceServers(fields)[0].turnURI == nil)
    }

    @Test("comma-joined links, commas and escapes in quoted strings, tokens, case, other rels")
    func robustness() {
        let field = #"<https://example.org/doc>; rel=describedby, <turn:t.example?transport=tcp>;REL = "ice-server" ; "#
            + #"username="a,b;c" ;credential="x\"y\\z", <turn:u.example>; rel=ice-server; username=tok; credential=tok2"#
            + #", garbage, <stun:s.example>; rel="alternate ice-server""#
        #expect(LinkHeader.iceServers([field]) == [
            ICEServer(url: "turn:t.example?transport=tcp", username: "a,b;c", credential: #"x"y\z"#),
            ICEServer(url: "turn:u.example", username: "tok", credential: "tok2"),
            ICEServer(url: "stun:s.example"),
        ])
        #expect(LinkHeader.iceServers([]).isEmpty && LinkHeader.iceServers([""]).isEmpty && LinkHeader.iceServers(["<"]).isEmpty)
    }

    @Test("a TURN server needs a username and a credential")
    func credentialsRequired() {
        #expect(ICEServer(url: "turn:h", username: "u").turnURI == nil)
        #expect(ICEServer(url: "turn:h", username: "u", credential: "p").turnURI != nil)
    }

    @Test("a relayed pair's alias (the peer's address on base 1) maps back to its peer; direct addresses are no alias")
    func alias() throws {
        for text in ["198.18.0.1", "2001:db8::1"] {
            let peer = try #require(TransportAddress(host: text, port: 40_000))
            let alias = RelayedPeerAlias.alias(of: peer)
            #expect(alias != peer && alias.description == peer.description && alias.base == 1)
            #expect(RelayedPeerAlias.peer(of: alias) == peer)
            #expect(RelayedPeerAlias.peer(of: peer) == nil)
        }
    }

    @Test("the relay candidate: type relay, type preference 0, raddr/rport the mapped address")
    func relayCandidate() throws {
        let candidate = HostCandidates.relayCandidate(relayed: try #require(TransportAddress(host: "192.0.2.1", port: 50_000)),
                                                      mapped: TransportAddress(host: "203.0.113.4", port: 6_000))
        #expect(candidate.type == .relay && candidate.priority >> 24 == 0 && candidate.transport == "udp")
        #expect(candidate.relatedAddress == "203.0.113.4" && candidate.relatedPort == 6_000)
    }
}
