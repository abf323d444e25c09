import OnAirWire

/// Typed views of the attributes a TURN server answers with (nil when absent or malformed).
extension STUNMessage {
    /// RFC 8489 §14.9 REALM
    public var realm: String? { try? attribute(.realm)?.decodeString() }
    /// RFC 8489 §14.10 NONCE
    public var nonce: String? { try? attribute(.nonce)?.decodeString() }
    /// RFC 8656 §18.2 LIFETIME, seconds.
    public var lifetime: UInt32? { try? attribute(.lifetime)?.decodeUInt32() }
    /// RFC 8656 §18.5 XOR-RELAYED-ADDRESS
    public var xorRelayedAddress: TransportAddress? {
        try? attribute(.xorRelayedAddress)?.decodeXORAddress(transactionID: transactionID)
    }
    /// RFC 8656 §18.3 XOR-PEER-ADDRESS (the first one)
    public var xorPeerAddress: TransportAddress? {
        try? attribute(.xorPeerAddress)?.decodeXORAddress(transactionID: transactionID)
    }
    /// RFC 8656 §18.4 DATA
    public var data: [UInt8]? { attribute(.data)?.value }
    /// RFC 8656 §18.1 CHANNEL-NUMBER
    public var channelNumber: UInt16? {
        guard let value = attribute(.channelNumber)?.value, value.count == 4 else { return nil }
        return UInt16(value[0]) << 8 | UInt16(value[1])
    }
}
