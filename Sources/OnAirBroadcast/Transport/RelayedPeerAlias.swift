import OnAirWire

/// How a pair whose local candidate is our TURN relay candidate is named to ICE and the peer
/// session, which know pairs only by the remote address: the relay's candidate `a.b.c.d:p`
/// reached through TURN is `[100::a.b.c.d]:p`, an address of the IPv6 discard-only prefix
/// 100::/64 (RFC 6666: never routed, so it can name no real peer). The same candidate reached
/// directly keeps its own address, so both pairs are checked and nominated independently, and
/// ``MediaSocket`` sends a packet for an alias through the TURN client to the peer it stands for.
enum RelayedPeerAlias {
    /// 100:0:0:0 (RFC 6666) in the upper 64 bits.
    private static let prefix: UInt64 = 0x0100_0000_0000_0000

    /// The alias of an IPv4 `peer` reached through the TURN server; nil for IPv6 peers (our
    /// sockets are IPv4).
    static func alias(of peer: TransportAddress) -> TransportAddress? {
        guard case .v4(let ip) = peer.ip else { return nil }
        return TransportAddress(ip: .v6(IPv6Address(high: prefix, low: UInt64(ip))), port: peer.port)
    }

    /// The peer an alias stands for; nil for every real address. Cheap: on the per-packet path.
    @inline(__always)
    static func peer(of address: TransportAddress) -> TransportAddress? {
        guard case .v6(let ip) = address.ip, ip.high == prefix, ip.low >> 32 == 0 else { return nil }
        return TransportAddress(ip: .v4(UInt32(truncatingIfNeeded: ip.low)), port: address.port)
    }
}
