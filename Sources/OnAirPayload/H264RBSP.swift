/// Raw byte sequence payloads (H.264 §7.3.1, §7.4.1): inside a NAL unit, the encoder
/// inserts `emulation_prevention_three_byte` (0x03) after every two zero bytes that are
/// followed by a byte ≤ 0x03, so that no start code can appear. Parsers of syntax
/// elements (SPS, PPS, slice headers) read the RBSP, with those bytes removed.
public enum H264RBSP {
    /// Removes emulation prevention bytes: every 0x03 that follows two zero bytes.
    /// `nalUnit` may include the NAL unit header; it is copied like any other byte.
    public static func unescape<Bytes: Collection>(_ nalUnit: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(nalUnit.count)
        var zeros = 0
        for byte in nalUnit {
            if zeros >= 2 && byte == 0x03 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Inserts emulation prevention bytes into an RBSP: a 0x03 after two zero bytes
    /// that are followed by a byte ≤ 0x03, and after a final zero byte (H.264 §7.4.1:
    /// an RBSP that ends in 0x00, which only cabac_zero_words can cause, gets a 0x03).
    public static func escape<Bytes: Collection>(_ rbsp: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 1)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 0x03 {
                out.append(0x03)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if out.last == 0 { out.append(0x03) }
        return out
    }
}
