import OnAirWire

/// RFC 3550 §6.6 BYE: the sources that are leaving and an optional reason.
///
/// ```
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// |                           SSRC/CSRC                           |
/// |     length    |               reason for leaving             ... (opt)
/// ```
public struct Goodbye: RTCPMessage {
    /// At most 31 (SC is 5 bits); further SSRCs are not written.
    public var ssrcs: [UInt32]
    /// UTF-8, at most 255 bytes when written.
    public var reason: String?

    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        let count = Int(header.count)
        try reader.require(4 * count, for: "RTCP BYE with \(count) sources")
        var list: [UInt32] = []
        list.reserveCapacity(count)
        for _ in 0..<count { list.append(try reader.readUInt32()) }
        ssrcs = list
        if reader.remaining > 0 {
            let length = Int(try reader.readUInt8())
            try reader.require(length, for: "RTCP BYE reason")
            reason = String(decoding: try reader.readBytes(length), as: UTF8.self)
        } else {
            reason = nil
        }
    }

    /// The reason's UTF-8, cut to at most 255 bytes on a character boundary so that what
    /// is written decodes to a prefix of the reason.
    private var reasonBytes: [UInt8]? {
        guard let reason else { return nil }
        var bytes: [UInt8] = []
        for scalar in reason.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            if bytes.count + encoded.count > 255 { break }
            bytes += encoded
        }
        return bytes
    }

    public var serializedSize: Int {
        let reasonSize = reasonBytes.map { (1 + $0.count + 3) / 4 * 4 } ?? 0
        return RTCPHeader.size + 4 * min(ssrcs.count, 31) + reasonSize
    }

    public func serialize(into writer: inout ByteWriter) {
        let written = ssrcs.prefix(31)
        RTCPHeader(count: UInt8(written.count), packetType: RTCPPacketType.goodbye, packetSize: serializedSize)
            .serialize(into: &writer)
        for ssrc in written { writer.write(ssrc) }
        if let text = reasonBytes {
            writer.write(UInt8(text.count))
            writer.write(contentsOf: text)
            writer.writeZeros((4 - (1 + text.count) % 4) % 4)
        }
    }
}
