import OnAirWire

/// Reads H.264 syntax elements (H.264 §7.2) from an RBSP, most significant bit first:
/// `u(n)` fixed-width fields and the Exp-Golomb codes `ue(v)` and `se(v)` (§9.1).
///
/// Every read is bounds-checked and throws ``WireError`` at the end of the data; none traps.
public struct H264BitReader: Sendable {
    private let bytes: [UInt8]
    /// Position of the next bit, counted from the first bit of `bytes`.
    public private(set) var bitOffset: Int

    /// A reader over `rbsp` (emulation prevention already removed, see ``H264RBSP``),
    /// starting at byte `byteOffset`.
    public init(_ rbsp: [UInt8], byteOffset: Int = 0) {
        bytes = rbsp
        bitOffset = max(0, min(byteOffset, rbsp.count)) * 8
    }

    public var bitsRemaining: Int { bytes.count * 8 - bitOffset }

    /// `u(1)`.
    public mutating func readFlag() throws(WireError) -> Bool {
        guard bitOffset < bytes.count * 8 else { throw .truncated }
        let bit = bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7)) & 1
        bitOffset += 1
        return bit == 1
    }

    /// `u(n)` for n in 0...32.
    public mutating func readBits(_ count: Int) throws(WireError) -> UInt32 {
        guard (0...32).contains(count) else { throw .invalid("cannot read \(count) bits at once") }
        guard count <= bitsRemaining else { throw .truncated }
        var value: UInt32 = 0
        for _ in 0..<count {
            let bit = bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7)) & 1
            value = value << 1 | UInt32(bit)
            bitOffset += 1
        }
        return value
    }

    public mutating func skipBits(_ count: Int) throws(WireError) {
        guard count >= 0, count <= bitsRemaining else { throw .truncated }
        bitOffset += count
    }

    /// `ue(v)` (H.264 §9.1): `leadingZeroBits` zeros, a one, then as many info bits;
    /// codeNum = 2^leadingZeroBits − 1 + info. More than 31 leading zeros would not fit
    /// 32 bits and is rejected.
    public mutating func readUE() throws(WireError) -> UInt32 {
        var leadingZeros = 0
        while try !readFlag() {
            leadingZeros += 1
            guard leadingZeros <= 31 else { throw .invalid("Exp-Golomb code with more than 31 leading zeros") }
        }
        let info = try readBits(leadingZeros)
        return (UInt32(1) << UInt32(leadingZeros)) - 1 + info
    }

    /// `se(v)` (H.264 §9.1.1, Table 9-3): codeNum k maps to (−1)^(k+1) · ⌈k÷2⌉.
    public mutating func readSE() throws(WireError) -> Int32 {
        let k = try readUE()
        let magnitude = Int32(truncatingIfNeeded: (k >> 1) + (k & 1))
        return k & 1 == 1 ? magnitude : -magnitude
    }

    /// A `ue(v)` that the syntax bounds to `range`; anything else is invalid input.
    public mutating func readUE(in range: ClosedRange<UInt32>, _ name: String) throws(WireError) -> UInt32 {
        let value = try readUE()
        guard range.contains(value) else { throw .invalid("\(name) = \(value) is outside \(range)") }
        return value
    }
}
