/// base64url without padding (RFC 7515 §2, RFC 4648 §5), as JWS compact serialization uses it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A character's 6-bit value, or 0xFF (computed, not looked up: no global on the hot path).
    @inline(__always)
    private static func value(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c &- 65
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c &- 71
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c &+ 4
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return 0xFF
        }
    }

    /// Decodes; nil on a character outside the alphabet, padding, or an impossible length.
    public static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var failed = false
        var leftover: UInt32 = 0
        let decoded = [UInt8](unsafeUninitializedCapacity: text.count * 3 / 4) { buffer, count in
            var accumulator: UInt32 = 0
            var bits: UInt32 = 0
            var written = 0
            for c in text {
                let v = value(c)
                if v == 0xFF { failed = true; break }
                accumulator = accumulator << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    buffer[written] = UInt8(truncatingIfNeeded: accumulator >> bits)
                    written += 1
                }
            }
            leftover = accumulator & ((1 << bits) - 1)
            count = written
        }
        // RFC 4648 §3.5: the bits left over must be zero (one text, one value).
        guard !failed, leftover == 0 else { return nil }
        return decoded
    }

    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? { decode(ArraySlice(text)) }

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for b in bytes {
            accumulator = accumulator << 8 | UInt32(b)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
