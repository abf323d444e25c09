import OnAirWire

/// RFC 3611 XR, kept raw: the reporter's SSRC and its report blocks as bytes.
///
/// ```
/// |V=2|P|reserved |   PT=XR=207   |             length            |
/// |                              SSRC                             |
/// |                          report blocks                       ...
/// ```
public struct ExtendedReport: RTCPMessage {
    public var ssrc: UInt32
    /// The report blocks, unparsed; written padded to 32 bits.
    public var reportBlocks: [UInt8]

    public init(ssrc: UInt32, reportBlocks: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(4, for: "RTCP XR")
        ssrc = try reader.readUInt32()
        reportBlocks = try reader.readBytes(reader.remaining)
    }

    public var serializedSize: Int { RTCPHeader.size + 4 + (reportBlocks.count + 3) / 4 * 4 }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: 0, packetType: RTCPPacketType.extendedReport, packetSize: serializedSize)
            .serialize(into: &writer)
        writer.write(ssrc)
        writer.write(contentsOf: reportBlocks)
        writer.writeZeros((4 - reportBlocks.count % 4) % 4)
    }
}
