import OnAirWire

/// What a message from the TURN server told ``TURNClient``.
public enum TURNClientEvent: Equatable, Sendable {
    /// RFC 8656 §7.3: the allocation exists; `relayed` is our relay candidate's address,
    /// `mapped` the server-reflexive one (XOR-MAPPED-ADDRESS), the candidate's raddr.
    case allocated(relayed: TransportAddress, mapped: TransportAddress?)
    /// §10.3: permissions for these peers' addresses are installed (or refreshed).
    case permissionsGranted([TransportAddress])
    /// §12.3: `channel` now carries data to and from `peer` as ChannelData.
    case channelBound(TransportAddress, channel: UInt16)
    /// §7.5: the allocation was refreshed for this many seconds.
    case refreshed(lifetimeSeconds: UInt32)
    /// §7.5: the Refresh with lifetime 0 was answered; the allocation is gone.
    case deallocated
    /// §11.4: a Data indication: `bytes` from `peer`.
    case data(TransportAddress, [UInt8])
    /// A CreatePermission or ChannelBind was refused; the allocation itself is fine.
    case requestFailed(String)
    /// The allocation failed or was lost (refused credentials, no answer, 437): see
    /// ``TURNClient/state``.
    case failed(String)
}
