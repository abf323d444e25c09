import OnAirWire

/// A compound RTCP packet (RFC 3550 §6.1) read in place: the validity checks of App. A.2 on
/// the whole datagram (version 2, every length fits, padding consistent, the lengths add up
/// to exactly the datagram; reduced-size RTCP, RFC 5506, accepted), then its packets one by
/// one as ``RTCPPacketView``s over the same bytes. Neither step allocates: this is how the
/// relay reads the feedback of every viewer. ``RTCPPacket/parseCompound(_:)`` frames with it.
public struct RTCPCompoundView: Sequence {
    public let bytes: UnsafeRawBufferPointer

    public init(_ bytes: UnsafeRawBufferPointer) throws(WireError) {
        guard !bytes.isEmpty else { throw .invalid("empty RTCP packet") }
        var offset = 0
        while offset < bytes.count {
            _ = try Self.packet(in: bytes, at: offset)
            offset += Int(bytes.uint16(at: offset + 2)) * 4 + 4
        }
        self.bytes = bytes
    }

    /// The packet at `offset`, checked.
    static func packet(in bytes: UnsafeRawBufferPointer, at offset: Int) throws(WireError) -> RTCPPacketView {
        let remaining = bytes.count - offset
        guard remaining >= RTCPHeader.size else { throw .invalid("RTCP header needs 4 bytes, \(remaining) left") }
        let first = bytes[offset]
        guard first >> 6 == RTCPHeader.version else { throw .invalid("RTCP version \(first >> 6), expected 2") }
        let size = Int(bytes.uint16(at: offset + 2)) * 4 + 4
        guard remaining >= size else {
            throw .invalid("RTCP packet type \(bytes[offset + 1]) claims \(size) bytes, only \(remaining) left in the compound packet")
        }
        var bodyEnd = offset + size
        if first & 0x20 != 0 {
            let bodySize = size - RTCPHeader.size
            let padding = bodySize > 0 ? Int(bytes[offset + size - 1]) : 0
            guard padding >= 1, padding <= bodySize else {
                throw .invalid("RTCP padding count \(padding) does not fit a \(bodySize)-byte packet body")
            }
            bodyEnd -= padding
        }
        return RTCPPacketView(bytes: bytes, start: offset, end: offset + size, bodyEnd: bodyEnd)
    }

    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        public mutating func next() -> RTCPPacketView? {
            guard offset < bytes.count, let packet = try? RTCPCompoundView.packet(in: bytes, at: offset) else { return nil }
            offset = packet.end
            return packet
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}
