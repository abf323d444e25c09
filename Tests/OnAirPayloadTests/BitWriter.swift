import OnAirPayload

/// Writes H.264 syntax elements (u(n), ue(v), se(v), H.264 §9.1) so tests can build
/// parameter sets that no encoder on this machine produces (scaling lists, picture order
/// count type 1). Written from the spec, independently of the module's reader.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func bit(_ value: Bool) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if value { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
        bitCount += 1
    }

    mutating func bits(_ value: UInt64, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bit((value >> UInt64(shift)) & 1 == 1) }
    }

    mutating func ue(_ value: UInt64) {
        let code = value + 1
        let length = 64 - code.leadingZeroBitCount
        bits(0, length - 1)
        bits(code, length)
    }

    mutating func se(_ value: Int64) {
        ue(value > 0 ? UInt64(2 * value - 1) : UInt64(-2 * value))
    }

    /// rbsp_trailing_bits(): a one, then zeros to the byte boundary.
    mutating func trailingBits() {
        bit(true)
        while bitCount % 8 != 0 { bit(false) }
    }
}
