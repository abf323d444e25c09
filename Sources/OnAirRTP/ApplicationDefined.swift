import OnAirWire

/// RFC 3550 §6.7 APP: kept so a compound packet round-trips; the relay ignores it.
///
/// ```
/// |V=2|P| subtype |   PT=APP=204  |             length            |
/// |                           SSRC/CSRC                           |
/// |                          name (ASCII)                         |
/// |                   application-dependent data                 ...
/// ```
public struct ApplicationDefined: RTCPMessage {
    public var subtype: UInt8
    public var ssrc: UInt32
    /// Four ASCII characters, big-endian.
    public var name: UInt32
    /// Written padded to 32 bits.
    public var data: [UInt8]

    public init(subtype: UInt8, ssrc: UInt32, name: UInt32, data: [UInt8] = []) {
        self.subtype = subtype
        self.ssrc = ssrc
        self.name = name
        self.data = data
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(8, for: "RTCP APP")
        subtype = header.count
        ssrc = try reader.readUInt32()
        name = try reader.readUInt32()
        data = try reader.readBytes(reader.remaining)
    }

    public var serializedSize: Int { RTCPHeader.size + 8 + (data.count + 3) / 4 * 4 }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: subtype & 0x1F, packetType: RTCPPacketType.applicationDefined, packetSize: serializedSize)
            .serialize(into: &writer)
        writer.write(ssrc)
        writer.write(name)
        writer.write(contentsOf: data)
        writer.writeZeros((4 - data.count % 4) % 4)
    }
}
