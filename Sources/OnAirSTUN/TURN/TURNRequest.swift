import OnAirWire

/// What a ``TURNClient`` asks its server (RFC 8656 §7-§12).
enum TURNRequest: Sendable, Equatable {
    /// §7.1 Allocate a UDP relay.
    case allocate
    /// §7.4 Refresh the allocation; lifetime 0 deletes it (§7.2).
    case refresh(lifetime: UInt32)
    /// §10.1 CreatePermission for these peers' IP addresses (ports are ignored, §9).
    case createPermission([TransportAddress])
    /// §12.1 ChannelBind `number` to `peer` (also installs or refreshes its permission).
    case channelBind(TransportAddress, UInt16)

    var method: STUNMethod {
        switch self {
        case .allocate: return .allocate
        case .refresh: return .refresh
        case .createPermission: return .createPermission
        case .channelBind: return .channelBind
        }
    }

    /// The attributes particular to this request (credentials, SOFTWARE come on top).
    func attributes(transactionID: [UInt8]) -> [STUNAttribute] {
        switch self {
        case .allocate:
            return [.requestedTransport(), .lifetime(seconds: TURNClient.requestedLifetime)]
        case .refresh(let lifetime):
            return [.lifetime(seconds: lifetime)]
        case .createPermission(let peers):
            return peers.map { .xorPeerAddress($0, transactionID: transactionID) }
        case .channelBind(let peer, let number):
            return [.channelNumber(number), .xorPeerAddress(peer, transactionID: transactionID)]
        }
    }
}
