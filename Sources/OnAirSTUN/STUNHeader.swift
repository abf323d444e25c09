import OnAirWire

/// The fixed 20-byte STUN header (RFC 8489 §5), validated against the datagram it heads.
///
/// Separate from ``STUNMessage`` so that a request whose attributes are malformed can still be
/// answered with 400 (its transaction ID is intact) and so that integrity checks can walk raw
/// bytes without building a message.
struct STUNHeader: Sendable {
    static let length = 20

    var type: STUNMessageType
    /// The length field: bytes after the header, a multiple of 4.
    var bodyLength: Int
    var transactionID: [UInt8]

    /// Checks everything RFC 8489 §6.3 lets a receiver check before looking at attributes:
    /// the two leading zero bits, the magic cookie, and a length that is a multiple of 4 and
    /// matches the datagram exactly (a datagram carries exactly one message).
    static func parse(_ bytes: [UInt8]) throws(WireError) -> STUNHeader {
        var reader = ByteReader(bytes)
        let rawType = try reader.readUInt16()
        let length = Int(try reader.readUInt16())
        let cookie = try reader.readUInt32()
        let transactionID = try reader.readBytes(12)
        guard let type = STUNMessageType(rawValue: rawType) else {
            throw .invalid("STUN message type 0x\(String(rawType, radix: 16)) has a leading bit set")
        }
        guard cookie == STUNMessage.magicCookie else {
            throw .invalid("STUN magic cookie 0x\(String(cookie, radix: 16)) is not 0x2112a442")
        }
        guard length % 4 == 0 else { throw .invalid("STUN length \(length) is not a multiple of 4") }
        guard reader.remaining >= length else { throw .truncated }
        guard reader.remaining == length else {
            throw .invalid("STUN length \(length) but \(reader.remaining) bytes follow the header")
        }
        return STUNHeader(type: type, bodyLength: length, transactionID: transactionID)
    }
}
