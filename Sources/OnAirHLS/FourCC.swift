/// A four-character code naming a box type or a brand (ISO/IEC 14496-12 §4.2, §4.3).
///
/// Written big-endian as four ASCII bytes. Literals are programmer-supplied constants, so a
/// malformed literal is a programming error and traps; nothing parsed from the network
/// is turned into a `FourCC` here.
public struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(stringLiteral value: StaticString) {
        precondition(value.utf8CodeUnitCount == 4, "a FourCC has exactly four ASCII characters")
        var raw: UInt32 = 0
        value.withUTF8Buffer { buffer in
            for byte in buffer { raw = raw << 8 | UInt32(byte) }
        }
        rawValue = raw
    }

    public var description: String {
        var text = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            text.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))))
        }
        return text
    }
}
