import OnAirWire

/// Walks the attribute TLVs of a message whose header is already validated, yielding offsets
/// instead of copies (RFC 8489 §14: type, length, value, padding to a multiple of 4).
struct STUNAttributeScanner {
    /// Where one attribute sits in the raw bytes.
    struct Entry {
        var type: STUNAttributeType
        /// Offset of the attribute's 4-byte header.
        var offset: Int
        /// Value length, without padding.
        var length: Int
        var valueRange: Range<Int> { offset + 4 ..< offset + 4 + length }
    }

    private let bytes: [UInt8]
    private var offset = STUNHeader.length
    private let end: Int

    init(_ bytes: [UInt8], header: STUNHeader) {
        self.bytes = bytes
        self.end = min(bytes.count, STUNHeader.length + header.bodyLength)
    }

    /// The next attribute, nil at the end; throws when an attribute (with its padding) runs
    /// past the message.
    mutating func next() throws(WireError) -> Entry? {
        guard offset < end else { return nil }
        guard end - offset >= 4 else { throw .invalid("STUN attribute header overruns the message") }
        let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        let length = Int(UInt16(bytes[offset + 2]) << 8 | UInt16(bytes[offset + 3]))
        let padded = (length + 3) & ~3
        guard end - offset - 4 >= padded else {
            throw .invalid("STUN attribute \(STUNAttributeType(rawValue: type)) of \(length) bytes overruns the message")
        }
        let entry = Entry(type: STUNAttributeType(rawValue: type), offset: offset, length: length)
        offset += 4 + padded
        return entry
    }
}
