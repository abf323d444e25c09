import OnAirWire

/// One STUN attribute as it travels: a type and its value bytes, without padding
/// (RFC 8489 §14). Keeping the raw value means unknown attributes survive a parse/encode round
/// trip untouched; typed factories build values and `decode…` readers interpret them.
public struct STUNAttribute: Hashable, Sendable, CustomStringConvertible {
    public var type: STUNAttributeType
    /// At most 65,535 bytes (the length field is 16 bits).
    public var value: [UInt8]

    public init(type: STUNAttributeType, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    // MARK: Factories

    /// RFC 8489 §14.3 USERNAME; ICE uses "receiverUfrag:senderUfrag" (RFC 8445 §7.2.2).
    public static func username(_ name: String) -> STUNAttribute {
        STUNAttribute(type: .username, value: Array(name.utf8))
    }

    /// RFC 8489 §14.14 SOFTWARE
    public static func software(_ description: String) -> STUNAttribute {
        STUNAttribute(type: .software, value: Array(description.utf8))
    }

    /// RFC 8445 §16.1 PRIORITY: the priority a peer-reflexive candidate learnt from this check
    /// would get (§7.1.1).
    public static func priority(_ priority: UInt32) -> STUNAttribute {
        STUNAttribute(type: .priority, value: bigEndian(priority))
    }

    /// RFC 8445 §16.1 USE-CANDIDATE: the controlling agent nominates this pair. No value.
    public static let useCandidate = STUNAttribute(type: .useCandidate, value: [])

    /// RFC 8445 §16.1 ICE-CONTROLLED with the sender's tie-breaker.
    public static func iceControlled(tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: .iceControlled, value: bigEndian(tieBreaker))
    }

    /// RFC 8445 §16.1 ICE-CONTROLLING with the sender's tie-breaker.
    public static func iceControlling(tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: .iceControlling, value: bigEndian(tieBreaker))
    }

    /// RFC 8489 §14.8 ERROR-CODE
    public static func errorCode(_ error: STUNErrorCode) -> STUNAttribute {
        STUNAttribute(type: .errorCode, value: error.encoded)
    }

    /// RFC 8489 §14.13 UNKNOWN-ATTRIBUTES, listed in a 420 response.
    public static func unknownAttributes(_ types: [STUNAttributeType]) -> STUNAttribute {
        STUNAttribute(type: .unknownAttributes, value: types.flatMap { [UInt8($0.rawValue >> 8), UInt8($0.rawValue & 0xFF)] })
    }

    /// RFC 8489 §14.1 MAPPED-ADDRESS (only for old RFC 3489 clients; ICE uses the XOR form).
    public static func mappedAddress(_ address: TransportAddress) -> STUNAttribute {
        STUNAttribute(type: .mappedAddress, value: STUNAddressCodec.encode(address, transactionID: nil))
    }

    /// RFC 8489 §14.2 XOR-MAPPED-ADDRESS; the transaction ID (12 bytes) is part of the IPv6 mask.
    public static func xorMappedAddress(_ address: TransportAddress, transactionID: [UInt8]) -> STUNAttribute {
        STUNAttribute(type: .xorMappedAddress, value: STUNAddressCodec.encode(address, transactionID: transactionID))
    }

    // MARK: Readers (throw on malformed values, never trap)

    /// The value as UTF-8 text (USERNAME, SOFTWARE, REALM, NONCE).
    public func decodeString() throws(WireError) -> String {
        guard let text = String(validating: value, as: UTF8.self) else {
            throw .invalid("\(type) is not valid UTF-8")
        }
        return text
    }

    /// A 32-bit value (PRIORITY).
    public func decodeUInt32() throws(WireError) -> UInt32 {
        guard value.count == 4 else { throw .invalid("\(type) must be 4 bytes, got \(value.count)") }
        var reader = ByteReader(value)
        return try reader.readUInt32()
    }

    /// A 64-bit value (ICE-CONTROLLED / ICE-CONTROLLING tie-breakers).
    public func decodeUInt64() throws(WireError) -> UInt64 {
        guard value.count == 8 else { throw .invalid("\(type) must be 8 bytes, got \(value.count)") }
        var reader = ByteReader(value)
        return try reader.readUInt64()
    }

    /// MAPPED-ADDRESS (or any other plain address attribute).
    public func decodeAddress() throws(WireError) -> TransportAddress {
        try STUNAddressCodec.decode(value, transactionID: nil)
    }

    /// XOR-MAPPED-ADDRESS, unmasked with the message's transaction ID.
    public func decodeXORAddress(transactionID: [UInt8]) throws(WireError) -> TransportAddress {
        guard transactionID.count == 12 else { throw .invalid("transaction ID must be 12 bytes") }
        return try STUNAddressCodec.decode(value, transactionID: transactionID)
    }

    /// ERROR-CODE
    public func decodeErrorCode() throws(WireError) -> STUNErrorCode {
        try STUNErrorCode.decode(value)
    }

    /// UNKNOWN-ATTRIBUTES: a list of 16-bit types.
    public func decodeAttributeTypes() throws(WireError) -> [STUNAttributeType] {
        guard value.count % 2 == 0 else { throw .invalid("UNKNOWN-ATTRIBUTES has an odd length \(value.count)") }
        return stride(from: 0, to: value.count, by: 2).map {
            STUNAttributeType(rawValue: UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]))
        }
    }

    public var description: String { "\(type)(\(value.count) bytes)" }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func bigEndian(_ v: UInt64) -> [UInt8] {
        bigEndian(UInt32(truncatingIfNeeded: v >> 32)) + bigEndian(UInt32(truncatingIfNeeded: v))
    }
}
