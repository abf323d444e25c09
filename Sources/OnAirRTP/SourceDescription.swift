import OnAirWire

/// RFC 3550 §6.5 SDES: for each source a chunk of items (CNAME and friends).
///
/// ```
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// |                          SSRC/CSRC_1                          |
/// |                           SDES items                          |
/// ```
/// Each chunk's item list ends with one or more zero octets that pad it to 32 bits.
public struct SourceDescription: RTCPMessage {
    public struct Chunk: Sendable, Hashable {
        public var ssrc: UInt32
        public var items: [SDESItem]

        public init(ssrc: UInt32, items: [SDESItem]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// SSRC, items, then 1-4 zero octets ending the list on a 32-bit boundary.
        var serializedSize: Int {
            let itemsSize = items.reduce(0) { $0 + ($1.type == 0 ? 0 : $1.serializedSize) }
            return 4 + (itemsSize + 4) / 4 * 4
        }
    }

    /// At most 31 (SC is 5 bits); further chunks are not written.
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// The common case: one source with its CNAME.
    public init(ssrc: UInt32, cname: String) {
        self.init(chunks: [Chunk(ssrc: ssrc, items: [.cname(cname)])])
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        let start = reader.offset
        var list: [Chunk] = []
        for index in 0..<Int(header.count) {
            try reader.require(4, for: "RTCP SDES chunk \(index)")
            var chunk = Chunk(ssrc: try reader.readUInt32(), items: [])
            while true {
                guard reader.remaining > 0 else {
                    throw .invalid("RTCP SDES chunk \(index) has no terminating null item")
                }
                let type = try reader.readUInt8()
                if type == 0 {
                    // Skip the null octets up to the next 32-bit boundary of the packet.
                    let misalignment = (reader.offset - start) % 4
                    if misalignment != 0 {
                        try reader.require(4 - misalignment, for: "RTCP SDES chunk \(index) padding")
                        try reader.skip(4 - misalignment)
                    }
                    break
                }
                try reader.require(1, for: "RTCP SDES item length")
                let length = Int(try reader.readUInt8())
                try reader.require(length, for: "RTCP SDES item of type \(type)")
                chunk.items.append(SDESItem(type: type, value: try reader.readBytes(length)))
            }
            list.append(chunk)
        }
        chunks = list
    }

    public var serializedSize: Int {
        RTCPHeader.size + chunks.prefix(31).reduce(0) { $0 + $1.serializedSize }
    }

    public func serialize(into writer: inout ByteWriter) {
        let written = chunks.prefix(31)
        RTCPHeader(count: UInt8(written.count), packetType: RTCPPacketType.sourceDescription, packetSize: serializedSize)
            .serialize(into: &writer)
        for chunk in written {
            writer.write(chunk.ssrc)
            var itemsSize = 0
            for item in chunk.items where item.type != 0 {
                let value = item.value.prefix(255)
                writer.write(item.type)
                writer.write(UInt8(value.count))
                writer.write(contentsOf: value)
                itemsSize += 2 + value.count
            }
            writer.writeZeros(4 - itemsSize % 4)
        }
    }
}
