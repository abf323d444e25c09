import OnAirWire

/// RFC 4585 §6.3.1 Picture Loss Indication: PSFB with FMT 1 and no FCI. A viewer sends
/// it to ask for a keyframe; the SFU forwards a coalesced one to the publisher.
///
/// ```
/// |V=2|P|  FMT=1  |   PT=PSFB=206 |           length=2            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// ```
public struct PictureLossIndication: RTCPMessage {
    public static let size = 12

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(8, for: "RTCP PLI")
        senderSSRC = try reader.readUInt32()
        mediaSSRC = try reader.readUInt32()
    }

    public var serializedSize: Int { Self.size }

    public func serialize(into writer: inout ByteWriter) {
        RTCPHeader(count: RTCPPacketType.pictureLossFormat, packetType: RTCPPacketType.payloadSpecificFeedback,
                   packetSize: Self.size).serialize(into: &writer)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
    }
}
