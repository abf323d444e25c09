import OnAirWire

/// RFC 3550 §6.4.2 RR: the reporter's SSRC and up to 31 reception report blocks.
///
/// ```
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// |                     SSRC of packet sender                     |
/// |                 report blocks (24 bytes each)                 |
/// |                  profile-specific extensions                  |
/// ```
public struct ReceiverReport: RTCPMessage {
    public var ssrc: UInt32
    /// At most 31 (RC is 5 bits); further blocks are not written.
    public var reportBlocks: [ReportBlock]
    /// Bytes after the report blocks; written padded to 32 bits.
    public var profileExtension: [UInt8]

    public init(ssrc: UInt32, reportBlocks: [ReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        let blocks = Int(header.count)
        try reader.require(4 + ReportBlock.size * blocks, for: "RTCP RR with \(blocks) report blocks")
        ssrc = try reader.readUInt32()
        var list: [ReportBlock] = []
        list.reserveCapacity(blocks)
        for _ in 0..<blocks { list.append(try ReportBlock(parsing: &reader)) }
        reportBlocks = list
        profileExtension = try reader.readBytes(reader.remaining)
    }

    private var blockCount: Int { min(reportBlocks.count, 31) }

    public var serializedSize: Int {
        RTCPHeader.size + 4 + ReportBlock.size * blockCount + (profileExtension.count + 3) / 4 * 4
    }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: UInt8(blockCount), packetType: RTCPPacketType.receiverReport, packetSize: serializedSize)
            .serialize(into: &writer)
        writer.write(ssrc)
        for block in reportBlocks.prefix(31) { block.serialize(into: &writer) }
        writer.write(contentsOf: profileExtension)
        writer.writeZeros((4 - profileExtension.count % 4) % 4)
    }
}
