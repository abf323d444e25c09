/// RFC 8656 §12.4 ChannelData message: a 4-byte header (channel number, length of the
/// application data) and the data, without STUN's 20-byte header and attributes: what media
/// takes to and from the TURN server once a channel is bound. Over TCP and TLS each message is
/// padded to a multiple of 4 bytes (§12.5); over UDP we send none (the length field says where
/// the data ends) and accept any.
public enum ChannelData {
    public static let headerLength = 4
    /// RFC 8656 §12: channel numbers 0x4000 through 0x4FFF (the rest of 0x4000-0x7FFF is reserved).
    public static let numbers: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// RFC 7983 §7: first byte 64-79 is TURN ChannelData on a port shared with STUN/DTLS/RTP.
    @inline(__always)
    public static func isChannelData(firstByte: UInt8) -> Bool { firstByte >= 0x40 && firstByte <= 0x4F }

    /// Writes the header for `length` data bytes on `channel` into `header` (4 bytes).
    @inline(__always)
    public static func writeHeader(channel: UInt16, length: Int, into header: UnsafeMutableRawBufferPointer) {
        header[0] = UInt8(channel >> 8)
        header[1] = UInt8(channel & 0xFF)
        header[2] = UInt8((length >> 8) & 0xFF)
        header[3] = UInt8(length & 0xFF)
    }

    /// The bytes that follow `length` data bytes over TCP/TLS to reach a multiple of 4 (§12.5).
    @inline(__always)
    public static func streamPadding(_ length: Int) -> Int { (4 - length % 4) % 4 }

    /// A message's channel number and where its data lies in `message`; nil when the channel is
    /// outside 0x4000-0x4FFF or the length runs past the bytes (padding after it is ignored).
    public static func parse(_ message: UnsafeRawBufferPointer) -> (channel: UInt16, data: Range<Int>)? {
        guard message.count >= headerLength else { return nil }
        let channel = UInt16(message[0]) << 8 | UInt16(message[1])
        let length = Int(message[2]) << 8 | Int(message[3])
        guard numbers.contains(channel), headerLength + length <= message.count else { return nil }
        return (channel, headerLength..<(headerLength + length))
    }

    /// One whole message as bytes (tests and the occasional non-media packet).
    public static func encode(channel: UInt16, data: [UInt8], padded: Bool) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: headerLength + data.count + (padded ? streamPadding(data.count) : 0))
        out.withUnsafeMutableBytes { raw in
            writeHeader(channel: channel, length: data.count, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<headerLength]))
        }
        out.replaceSubrange(headerLength..<(headerLength + data.count), with: data)
        return out
    }
}
