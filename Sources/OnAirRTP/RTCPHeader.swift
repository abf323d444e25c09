import OnAirWire

/// The RFC 3550 §6.4.1 common RTCP header:
///
/// ```
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// ```
/// RC is the report count, source count, FMT (RFC 4585 §6.1) or APP subtype, depending
/// on the packet type. `length` is the packet size in 32-bit words minus one, counting
/// this header and any padding.
public struct RTCPHeader: Sendable, Hashable {
    public static let size = 4
    public static let version: UInt8 = 2

    public var hasPadding: Bool
    /// The 5-bit RC / SC / FMT / subtype field.
    public var count: UInt8
    public var packetType: UInt8
    public var length: UInt16

    public init(hasPadding: Bool = false, count: UInt8, packetType: UInt8, length: UInt16) {
        self.hasPadding = hasPadding
        self.count = count
        self.packetType = packetType
        self.length = length
    }

    /// A header for a packet of `packetSize` bytes (a multiple of 4, header included, at
    /// most 262144 so that the word count fits 16 bits; RTCP packets fit a datagram).
    public init(count: UInt8, packetType: UInt8, packetSize: Int) {
        self.init(count: count, packetType: packetType, length: UInt16(truncatingIfNeeded: packetSize / 4 - 1))
    }

    /// Packet size in bytes, header and padding included.
    public var packetSize: Int { 4 * (Int(length) + 1) }

    public init(parsing reader: inout ByteReader) throws(WireError) {
        guard reader.remaining >= Self.size else {
            throw .invalid("RTCP header needs 4 bytes, \(reader.remaining) left")
        }
        let first = try reader.readUInt8()
        guard first >> 6 == Self.version else { throw .invalid("RTCP version \(first >> 6), expected 2") }
        hasPadding = first & 0x20 != 0
        count = first & 0x1F
        packetType = try reader.readUInt8()
        length = try reader.readUInt16()
    }

    public func serialize(into writer: inout ByteWriter) {
        writer.write(Self.version << 6 | (hasPadding ? 0x20 : 0) | count & 0x1F)
        writer.write(packetType)
        writer.write(length)
    }
}
