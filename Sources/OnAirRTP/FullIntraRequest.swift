import OnAirWire

/// RFC 5104 §4.3.1 Full Intra Request: PSFB with FMT 4. The media source SSRC of the
/// common header is unused (0); each FCI entry names a source and a command sequence
/// number that the sender increments per new request.
///
/// ```
/// |V=2|P|  FMT=4  |   PT=PSFB=206 |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |                              SSRC                             |  } per entry
/// | Seq nr.       |    Reserved                                   |  }
/// ```
public struct FullIntraRequest: RTCPMessage {
    public struct Entry: Sendable, Hashable {
        public var ssrc: UInt32
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(8, for: "RTCP FIR")
        senderSSRC = try reader.readUInt32()
        mediaSSRC = try reader.readUInt32()
        guard reader.remaining % 8 == 0 else {
            throw .invalid("RTCP FIR entries take 8 bytes each, \(reader.remaining) bytes left")
        }
        var list: [Entry] = []
        list.reserveCapacity(reader.remaining / 8)
        while !reader.isAtEnd {
            let ssrc = try reader.readUInt32()
            let sequenceNumber = try reader.readUInt8()
            try reader.skip(3)
            list.append(Entry(ssrc: ssrc, sequenceNumber: sequenceNumber))
        }
        entries = list
    }

    /// The FCI count is bounded by the 16-bit length field.
    private var entryCount: Int { min(entries.count, (Int(UInt16.max) - 2) / 2) }

    public var serializedSize: Int { 12 + 8 * entryCount }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: RTCPPacketType.fullIntraRequestFormat, packetType: RTCPPacketType.payloadSpecificFeedback,
                   packetSize: serializedSize).serialize(into: &writer)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        for entry in entries.prefix(entryCount) {
            writer.write(entry.ssrc)
            writer.write(entry.sequenceNumber)
            writer.writeUInt24(0)
        }
    }
}
