/// Hex helpers for fingerprints, test vectors and logs.
public enum Hex {
    /// Parses hex digits, ignoring spaces, newlines and colons. Returns nil on any other character
    /// or an odd number of digits.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        for c in text.utf8 {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: ":"), UInt8(ascii: "\t"): continue
            default: return nil
            }
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return high == nil ? out : nil
    }

    /// Lower-case hex, with an optional separator between bytes (":" for SDP fingerprints).
    public static func encode<C: Collection>(_ bytes: C, separator: String = "", uppercase: Bool = false) -> String
    where C.Element == UInt8 {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = ""
        out.reserveCapacity(bytes.count * (2 + separator.utf8.count))
        var first = true
        for b in bytes {
            if !first { out += separator }
            first = false
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(b >> 4)]))
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(b & 0xF)]))
        }
        return out
    }
}
