import OnAirWire

/// How a pair whose local candidate is our TURN relay candidate is named to ICE and the peer
/// session, which know pairs by the remote address: the relay's candidate reached through TURN
/// is its address with ``TransportAddress/base`` 1 (the relay candidate is that pair's base,
/// RFC 8445 §5.1.1.2). The same candidate reached directly keeps base 0, so both pairs are
/// checked and nominated independently, and ``MediaSocket`` sends a packet for an alias through
/// the TURN client to the peer it stands for.
enum RelayedPeerAlias {
    /// The base of pairs through the TURN relay candidate.
    static let base: UInt8 = 1

    /// `peer` reached through the TURN server.
    static func alias(of peer: TransportAddress) -> TransportAddress {
        var alias = peer
        alias.base = base
        return alias
    }

    /// The peer an alias stands for; nil for a direct address. Cheap: on the per-packet path.
    @inline(__always)
    static func peer(of address: TransportAddress) -> TransportAddress? {
        guard address.base == base else { return nil }
        var peer = address
        peer.base = 0
        return peer
    }
}
