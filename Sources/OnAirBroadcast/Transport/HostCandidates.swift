import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// Our host candidates (RFC 8445 §5.1.1.1) for the socket bound to all interfaces: loopback
/// when the endpoint is on this machine (a loopback-only test has nothing else), otherwise every
/// up, non-loopback IPv4 interface address; and the relay candidate of a TURN allocation.
/// Against an ICE-lite relay they barely matter (it learns our address from our checks); a
/// full-ICE endpoint checks them.
enum HostCandidates {
    static func candidates(port: UInt16, endpointHost: String) -> [ICECandidate] {
        let addresses = TransportAddress.isLoopback(host: endpointHost) ? ["127.0.0.1"] : interfaceAddresses()
        let udp = addresses.enumerated().map { index, address in
            // RFC 8445 §5.1.2.1 priority for host candidates: type preference 126, local
            // preference falling with the interface order, component 1.
            let priority = UInt32(126) << 24 | UInt32(65_535 - index) << 8 | 255
            return ICECandidate(foundation: String(index + 1), component: 1, transport: "udp", priority: priority,
                                address: address, port: port, type: .host)
        }
        // An active ICE-TCP candidate each (RFC 6544 §4.5: port 9, we connect out): local
        // preference 6 x 2^13 (active host, §4.2), below every UDP one.
        let tcp = addresses.enumerated().map { index, address in
            ICECandidate(foundation: String(addresses.count + index + 1), component: 1, transport: "tcp",
                         priority: UInt32(126) << 24 | UInt32(6 << 13 | (8_191 - index)) << 8 | 255,
                         address: address, port: 9, type: .host, tcpType: "active")
        }
        return udp + tcp
    }

    /// Our TURN relay candidate (RFC 8445 §5.1.1.2): type preference 0 (§5.1.2.2, below every
    /// host candidate), related address the server-reflexive one the Allocate answer named.
    static func relayCandidate(relayed: TransportAddress, mapped: TransportAddress?) -> ICECandidate {
        let related = mapped ?? relayed
        return ICECandidate(foundation: "9", component: 1, transport: "udp", priority: UInt32(65_535) << 8 | 255,
                            address: relayed.host, port: relayed.port, type: .relay,
                            relatedAddress: related.host, relatedPort: related.port)
    }

    private static func interfaceAddresses() -> [String] {
        let addresses = InterfaceAddresses.list(ipv6: false).map(\.host)
        return addresses.isEmpty ? ["127.0.0.1"] : addresses
    }
}
