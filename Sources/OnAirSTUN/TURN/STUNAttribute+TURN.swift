import OnAirWire

/// Factories for the attributes a TURN client sends (RFC 8656 §18, RFC 8489 §14.9-§14.10).
extension STUNAttribute {
    /// RFC 8489 §14.9 REALM, as the server sent it.
    public static func realm(_ realm: String) -> STUNAttribute {
        STUNAttribute(type: .realm, value: Array(realm.utf8))
    }

    /// RFC 8489 §14.10 NONCE, as the server sent it.
    public static func nonce(_ nonce: String) -> STUNAttribute {
        STUNAttribute(type: .nonce, value: Array(nonce.utf8))
    }

    /// RFC 8656 §18.7 REQUESTED-TRANSPORT: the IANA protocol number (17 = UDP, the only
    /// value RFC 8656 defines) and three reserved bytes.
    public static func requestedTransport(protocolNumber: UInt8 = 17) -> STUNAttribute {
        STUNAttribute(type: .requestedTransport, value: [protocolNumber, 0, 0, 0])
    }

    /// RFC 8656 §18.2 LIFETIME in seconds (0 in a Refresh deletes the allocation, §7.2).
    public static func lifetime(seconds: UInt32) -> STUNAttribute {
        STUNAttribute(type: .lifetime, value: [UInt8(seconds >> 24), UInt8((seconds >> 16) & 0xFF),
                                               UInt8((seconds >> 8) & 0xFF), UInt8(seconds & 0xFF)])
    }

    /// RFC 8656 §18.3 XOR-PEER-ADDRESS: encoded like XOR-MAPPED-ADDRESS (RFC 8489 §14.2).
    public static func xorPeerAddress(_ address: TransportAddress, transactionID: [UInt8]) -> STUNAttribute {
        STUNAttribute(type: .xorPeerAddress, value: STUNAddressCodec.encode(address, transactionID: transactionID))
    }

    /// RFC 8656 §18.4 DATA: the application bytes of a Send or Data indication.
    public static func data(_ bytes: [UInt8]) -> STUNAttribute {
        STUNAttribute(type: .data, value: bytes)
    }

    /// RFC 8656 §18.1 CHANNEL-NUMBER: the number and two reserved bytes (RFFU).
    public static func channelNumber(_ number: UInt16) -> STUNAttribute {
        STUNAttribute(type: .channelNumber, value: [UInt8(number >> 8), UInt8(number & 0xFF), 0, 0])
    }
}
