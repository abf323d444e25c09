import OnAirWire

/// Receiver Estimated Maximum Bitrate (draft-alvestrand-rmcat-remb-03 §2.2): an
/// application layer feedback message (PSFB, FMT 15) tagged "REMB".
///
/// ```
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback                                              ...
/// ```
/// The bitrate in bits per second is mantissa (18 bits) × 2^exp (6 bits).
public struct REMB: RTCPMessage {
    /// "REMB" in ASCII.
    public static let identifier: UInt32 = 0x5245_4D42
    static let maxMantissa: UInt64 = 0x3_FFFF
    /// The largest bitrate a 64-bit value can carry exactly: a full mantissa × 2^46.
    /// Larger exponents on the wire are read as this, so parsing and writing agree.
    public static let maxBitrate: UInt64 = maxMantissa << 46

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// Bits per second. Written with the smallest exponent whose mantissa fits 18 bits,
    /// so values above 2^18 lose their low bits.
    public var bitrate: UInt64
    /// At most 255 (Num SSRC is 8 bits); further SSRCs are not written.
    public var ssrcs: [UInt32]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// Whether a PSFB FMT 15 body (after the common header) starts like a REMB.
    static func matches(_ body: UnsafeRawBufferPointer) -> Bool {
        body.count >= 12 && body.uint32(at: 8) == identifier
    }

    /// The bitrate of the wire's 6-bit exponent and 18-bit mantissa (the low 24 bits).
    static func decodeBitrate(_ exponentAndMantissa: UInt32) -> UInt64 {
        let exponent = exponentAndMantissa >> 18 & 0x3F
        let mantissa = UInt64(exponentAndMantissa & 0x3_FFFF)
        // mantissa << exponent can exceed 64 bits (18 + 63); saturate instead.
        return mantissa > maxBitrate >> exponent ? maxBitrate : mantissa << exponent
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(16, for: "RTCP REMB")
        senderSSRC = try reader.readUInt32()
        mediaSSRC = try reader.readUInt32()
        guard try reader.readUInt32() == Self.identifier else {
            throw .invalid("RTCP application layer feedback is not a REMB (no 'REMB' identifier)")
        }
        let count = Int(try reader.readUInt8())
        bitrate = Self.decodeBitrate(try reader.readUInt24())
        try reader.require(4 * count, for: "RTCP REMB with \(count) SSRCs")
        var list: [UInt32] = []
        list.reserveCapacity(count)
        for _ in 0..<count { list.append(try reader.readUInt32()) }
        ssrcs = list
    }

    /// The 6-bit exponent and 18-bit mantissa written for ``bitrate``.
    public var exponentAndMantissa: (exponent: UInt8, mantissa: UInt32) {
        var exponent: UInt8 = 0
        var mantissa = bitrate
        while mantissa > Self.maxMantissa && exponent < 63 {
            mantissa >>= 1
            exponent += 1
        }
        return (exponent, UInt32(min(mantissa, Self.maxMantissa)))
    }

    public var serializedSize: Int { 20 + 4 * min(ssrcs.count, 255) }

    public func serialize(into writer: inout ByteWriter) {
        let written = ssrcs.prefix(255)
        RTCPHeader(count: RTCPPacketType.applicationLayerFeedbackFormat,
                   packetType: RTCPPacketType.payloadSpecificFeedback, packetSize: serializedSize)
            .serialize(into: &writer)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        writer.write(Self.identifier)
        writer.write(UInt8(written.count))
        let (exponent, mantissa) = exponentAndMantissa
        writer.writeUInt24(UInt32(exponent) << 18 | mantissa)
        for ssrc in written { writer.write(ssrc) }
    }
}
