import OnAirWire

/// RFC 3550 §6.4.1 SR: sender information and up to 31 reception report blocks.
///
/// ```
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// |                         SSRC of sender                        |
/// |              NTP timestamp, most significant word             |
/// |             NTP timestamp, least significant word             |
/// |                         RTP timestamp                         |
/// |                     sender's packet count                     |
/// |                      sender's octet count                     |
/// |                 report blocks (24 bytes each)                 |
/// |                  profile-specific extensions                  |
/// ```
public struct SenderReport: RTCPMessage {
    public var ssrc: UInt32
    public var ntpTime: NTPTime
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    /// At most 31 (RC is 5 bits); further blocks are not written.
    public var reportBlocks: [ReportBlock]
    /// Bytes after the report blocks; written padded to 32 bits.
    public var profileExtension: [UInt8]

    public init(
        ssrc: UInt32, ntpTime: NTPTime, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [ReportBlock] = [], profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        let blocks = Int(header.count)
        try reader.require(24 + ReportBlock.size * blocks, for: "RTCP SR with \(blocks) report blocks")
        ssrc = try reader.readUInt32()
        ntpTime = NTPTime(rawValue: try reader.readUInt64())
        rtpTimestamp = try reader.readUInt32()
        packetCount = try reader.readUInt32()
        octetCount = try reader.readUInt32()
        var list: [ReportBlock] = []
        list.reserveCapacity(blocks)
        for _ in 0..<blocks { list.append(try ReportBlock(parsing: &reader)) }
        reportBlocks = list
        profileExtension = try reader.readBytes(reader.remaining)
    }

    private var blockCount: Int { min(reportBlocks.count, 31) }

    public var serializedSize: Int {
        RTCPHeader.size + 24 + ReportBlock.size * blockCount + (profileExtension.count + 3) / 4 * 4
    }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: UInt8(blockCount), packetType: RTCPPacketType.senderReport, packetSize: serializedSize)
            .serialize(into: &writer)
        writer.write(ssrc)
        writer.write(ntpTime.rawValue)
        writer.write(rtpTimestamp)
        writer.write(packetCount)
        writer.write(octetCount)
        for block in reportBlocks.prefix(31) { block.serialize(into: &writer) }
        writer.write(contentsOf: profileExtension)
        writer.writeZeros((4 - profileExtension.count % 4) % 4)
    }
}
