import OnAirSDP
@testable import OnAirWebRTC
import OnAirWire
import Testing

@Suite("ICE-TCP candidates an active client connects to (RFC 6544 §4.5)")
struct PassiveTCPAddressesTests {
    @Test("passive TCP candidates of component 1, best first, as TCP addresses; active, UDP and RTCP ones left out")
    func passiveOnly() throws {
        let candidates = [
            ICECandidate(foundation: "1", transport: "udp", priority: 2_130_706_431, address: "192.0.2.1", port: 10_000),
            ICECandidate(foundation: "3", transport: "tcp", priority: 2_105_000_000, address: "192.0.2.2", port: 10_001, tcpType: "passive"),
            ICECandidate(foundation: "2", transport: "TCP", priority: 2_105_524_479, address: "192.0.2.1", port: 10_000, tcpType: "passive"),
            ICECandidate(foundation: "4", transport: "tcp", priority: 2_120_000_000, address: "192.0.2.1", port: 9, tcpType: "active"),
            ICECandidate(foundation: "5", component: 2, transport: "tcp", priority: 2_110_000_000, address: "192.0.2.1", port: 10_002,
                         tcpType: "passive"),
        ]
        let addresses = ClientPeerSessionParameters.passiveTCPAddresses(candidates)
        #expect(addresses == [try #require(TransportAddress(host: "192.0.2.1", port: 10_000, transport: .tcp)),
                              try #require(TransportAddress(host: "192.0.2.2", port: 10_001, transport: .tcp))])
        #expect(addresses.allSatisfy { $0.transport == .tcp && $0.description.hasPrefix("tcp:") })
        #expect(ClientPeerSessionParameters.udpAddresses(candidates).map(\.transport) == [.udp])
    }
}
