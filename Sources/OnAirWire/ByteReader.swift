/// A bounds-checked big-endian reader over a byte array, for parsers of network bytes.
///
/// Every read either returns a value or throws ``WireError/truncated``; no read ever
/// traps on hostile input. The array is shared (copy-on-write), never copied.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// Index of the next byte to read.
    public private(set) var offset: Int
    /// One past the last readable byte.
    public let end: Int

    public init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = max(0, min(start, bytes.count))
        self.end = max(self.offset, min(end ?? bytes.count, bytes.count))
    }

    public var remaining: Int { end - offset }
    public var isAtEnd: Bool { offset >= end }

    public mutating func readUInt8() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func readUInt16() throws(WireError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    public mutating func readUInt24() throws(WireError) -> UInt32 {
        guard remaining >= 3 else { throw .truncated }
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    public mutating func readUInt32() throws(WireError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    public mutating func readUInt64() throws(WireError) -> UInt64 {
        let high = try readUInt32()
        let low = try readUInt32()
        return UInt64(high) << 32 | UInt64(low)
    }

    /// Reads `count` bytes as a new array.
    public mutating func readBytes(_ count: Int) throws(WireError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Returns a reader over the next `count` bytes and advances past them.
    public mutating func subReader(_ count: Int) throws(WireError) -> ByteReader {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { offset += count }
        return ByteReader(bytes, from: offset, to: offset + count)
    }

    public mutating func skip(_ count: Int) throws(WireError) {
        guard count >= 0, remaining >= count else { throw .truncated }
        offset += count
    }

    /// Looks at the byte `ahead` positions from the cursor without consuming it.
    public func peekUInt8(ahead: Int = 0) throws(WireError) -> UInt8 {
        guard ahead >= 0, remaining > ahead else { throw .truncated }
        return bytes[offset + ahead]
    }
}
