import OnAirWire

/// RFC 4585 §6.2.1 Generic NACK: RTPFB with FMT 1. Each FCI item names a lost packet
/// (PID) and, in BLP, which of the 16 following packets are lost too.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=RTPFB=205|             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// |            PID                |             BLP               |  per item
/// ```
public struct GenericNACK: RTCPMessage {
    public struct Item: Sendable, Hashable {
        /// Packet ID: the sequence number of a lost packet.
        public var packetID: UInt16
        /// Bitmask of following lost packets: bit i (LSB = 0) means PID + i + 1 is lost.
        public var lostBitmask: UInt16

        public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// PID and every sequence number flagged in BLP, in increasing order (mod 2^16).
        public var lostSequenceNumbers: [UInt16] {
            var list = [packetID]
            for bit in 0..<16 where lostBitmask & (1 << bit) != 0 {
                list.append(packetID &+ UInt16(bit + 1))
            }
            return list
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var items: [Item]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, items: [Item]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.items = items
    }

    /// The fewest items that name exactly `lostSequenceNumbers`. The list may be in any
    /// order, hold duplicates and cross the 16-bit wrap; it is ordered relative to its
    /// first element, so it should span less than half the sequence space.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) {
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, items: Self.items(for: lostSequenceNumbers))
    }

    /// Greedy packing of a sorted list into 17-packet windows, which is optimal: each
    /// item must start at the earliest sequence number it can cover.
    public static func items(for lostSequenceNumbers: [UInt16]) -> [Item] {
        guard let reference = lostSequenceNumbers.first else { return [] }
        // Order wrap-aware by signed distance from the first entry.
        let ordered = lostSequenceNumbers
            .map { Int(Int16(bitPattern: $0 &- reference)) }
            .sorted()
        var items: [Item] = []
        var start = 0
        for offset in ordered {
            if let last = items.last {
                let distance = offset - start
                if distance == 0 { continue }
                if distance <= 16 {
                    items[items.count - 1].lostBitmask = last.lostBitmask | 1 << (distance - 1)
                    continue
                }
            }
            start = offset
            items.append(Item(packetID: reference &+ UInt16(truncatingIfNeeded: offset)))
        }
        return items
    }

    /// Every sequence number this NACK asks for, item by item.
    public var lostSequenceNumbers: [UInt16] { items.flatMap(\.lostSequenceNumbers) }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(8, for: "RTCP NACK")
        senderSSRC = try reader.readUInt32()
        mediaSSRC = try reader.readUInt32()
        guard reader.remaining % 4 == 0 else {
            throw .invalid("RTCP NACK items take 4 bytes each, \(reader.remaining) bytes left")
        }
        var list: [Item] = []
        list.reserveCapacity(reader.remaining / 4)
        while !reader.isAtEnd {
            list.append(Item(packetID: try reader.readUInt16(), lostBitmask: try reader.readUInt16()))
        }
        items = list
    }

    /// The FCI count is bounded by the 16-bit length field.
    private var itemCount: Int { min(items.count, Int(UInt16.max) - 2) }

    public var serializedSize: Int { 12 + 4 * itemCount }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: RTCPPacketType.genericNACKFormat, packetType: RTCPPacketType.transportFeedback,
                   packetSize: serializedSize).serialize(into: &writer)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        for item in items.prefix(itemCount) {
            writer.write(item.packetID)
            writer.write(item.lostBitmask)
        }
    }
}
