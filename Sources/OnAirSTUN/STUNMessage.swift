import OnAirCrypto
import OnAirWire

/// A STUN message (RFC 8489 §5): a type, a 96-bit transaction ID and attributes.
///
/// MESSAGE-INTEGRITY and FINGERPRINT are computed by ``encode(integrityKey:fingerprint:paddingByte:)``
/// and checked on the received bytes by ``verifyMessageIntegrity(_:key:)`` and
/// ``verifyFingerprint(_:)``; a parsed message still lists them so callers can see they were there.
public struct STUNMessage: Hashable, Sendable, CustomStringConvertible {
    /// RFC 8489 §5: the fixed value in bytes 4-7 that marks RFC 5389+ STUN.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// RFC 8489 §14.7: XORed into the CRC-32 so FINGERPRINT differs from other CRC-32 uses.
    public static let fingerprintXOR: UInt32 = 0x5354_554E

    public var type: STUNMessageType
    /// 12 bytes (RFC 8489 §5); random for requests, copied into responses.
    public var transactionID: [UInt8]
    public var attributes: [STUNAttribute]

    public init(type: STUNMessageType, transactionID: [UInt8], attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// A cheap test for demultiplexing one UDP port (RFC 7983 §7): the first byte is 0-3, the
    /// magic cookie is present and the length field matches the datagram. Allocates nothing.
    public static func isSTUN(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= STUNHeader.length, bytes[0] <= 3 else { return false }
        let cookie = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        return cookie == magicCookie && length % 4 == 0 && length == bytes.count - STUNHeader.length
    }

    /// Parses one datagram as a STUN message (RFC 8489 §6.3). Throws ``WireError`` on a bad
    /// header (leading bits, cookie, length), an attribute running past the message, a
    /// MESSAGE-INTEGRITY that is not 20 bytes, a FINGERPRINT that is not 4 bytes or not last.
    /// Attributes after MESSAGE-INTEGRITY other than FINGERPRINT and MESSAGE-INTEGRITY-SHA256
    /// are dropped, as §14.5 tells receivers to ignore them.
    public static func parse(_ bytes: [UInt8]) throws(WireError) -> STUNMessage {
        let header = try STUNHeader.parse(bytes)
        var scanner = STUNAttributeScanner(bytes, header: header)
        var attributes: [STUNAttribute] = []
        var afterIntegrity = false
        var afterFingerprint = false
        while let entry = try scanner.next() {
            guard !afterFingerprint else { throw .invalid("STUN attribute \(entry.type) follows FINGERPRINT") }
            switch entry.type {
            case .fingerprint:
                guard entry.length == 4 else { throw .invalid("FINGERPRINT must be 4 bytes, got \(entry.length)") }
                afterFingerprint = true
            case .messageIntegrity where !afterIntegrity:
                guard entry.length == 20 else { throw .invalid("MESSAGE-INTEGRITY must be 20 bytes, got \(entry.length)") }
                afterIntegrity = true
            case .messageIntegritySHA256:
                break
            default:
                if afterIntegrity { continue }
            }
            attributes.append(STUNAttribute(type: entry.type, value: Array(bytes[entry.valueRange])))
        }
        return STUNMessage(type: header.type, transactionID: header.transactionID, attributes: attributes)
    }

    /// Serialises the message. Any MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 or FINGERPRINT in
    /// ``attributes`` is skipped: they are computed here, never copied, because a copied one would
    /// not match the bytes it claims to cover.
    ///
    /// - Parameters:
    ///   - integrityKey: appends MESSAGE-INTEGRITY, HMAC-SHA1 with this key over the message with
    ///     its length field already counting the MESSAGE-INTEGRITY attribute (RFC 8489 §14.5). For
    ///     ICE short-term credentials the key is the password's UTF-8 bytes (§9.1.1).
    ///   - fingerprint: appends FINGERPRINT last, CRC-32 of everything before it XOR 0x5354554E,
    ///     with the length field counting FINGERPRINT (§14.7).
    ///   - paddingByte: the value of padding bytes. RFC 8489 §14 lets senders pick any value and
    ///     receivers ignore it; zero is usual, RFC 5769's vectors use 0x20.
    /// - Precondition: `transactionID` has 12 bytes and the message fits the 16-bit length field.
    public func encode(integrityKey: [UInt8]?, fingerprint: Bool, paddingByte: UInt8 = 0) -> [UInt8] {
        precondition(transactionID.count == 12, "STUN transaction ID must be 12 bytes")
        var writer = ByteWriter(capacity: 128)
        writer.write(type.rawValue)
        writer.write(UInt16(0))
        writer.write(Self.magicCookie)
        writer.write(contentsOf: transactionID)
        for attribute in attributes where !Self.computedTypes.contains(attribute.type) {
            Self.append(attribute, to: &writer, paddingByte: paddingByte)
        }
        if let integrityKey {
            Self.setLength(&writer, adding: 24)
            let mac = HMAC.sha1(key: integrityKey, data: writer.bytes)
            Self.append(STUNAttribute(type: .messageIntegrity, value: mac), to: &writer, paddingByte: paddingByte)
        }
        if fingerprint {
            Self.setLength(&writer, adding: 8)
            let crc = CRC32.checksum(writer.bytes) ^ Self.fingerprintXOR
            writer.write(STUNAttributeType.fingerprint.rawValue)
            writer.write(UInt16(4))
            writer.write(crc)
        }
        Self.setLength(&writer, adding: 0)
        return writer.bytes
    }

    /// The first attribute of a type, if any.
    public func attribute(_ type: STUNAttributeType) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    public var description: String {
        "STUN \(type) tid=\(Hex.encode(transactionID)) [\(attributes.map(\.description).joined(separator: ", "))]"
    }

    static let computedTypes: Set<STUNAttributeType> = [.messageIntegrity, .messageIntegritySHA256, .fingerprint]

    private static func append(_ attribute: STUNAttribute, to writer: inout ByteWriter, paddingByte: UInt8) {
        precondition(attribute.value.count <= 0xFFFF, "\(attribute.type) value exceeds 65535 bytes")
        writer.write(attribute.type.rawValue)
        writer.write(UInt16(attribute.value.count))
        writer.write(contentsOf: attribute.value)
        let padding = (4 - attribute.value.count % 4) % 4
        for _ in 0..<padding { writer.write(paddingByte) }
    }

    /// Sets the header length to what has been written plus `extra` bytes still to come.
    private static func setLength(_ writer: inout ByteWriter, adding extra: Int) {
        let length = writer.count - STUNHeader.length + extra
        precondition(length <= 0xFFFF, "STUN message exceeds the 16-bit length field")
        writer.set(UInt16(length), at: 2)
    }
}
