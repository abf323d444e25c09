import OnAirWire
import Testing

@testable import OnAirPayload
import OnAirTestSupport

@Suite("RBSP and Exp-Golomb (H.264 §7.4.1, §9.1)")
struct H264RBSPTests {
    @Test("emulation prevention bytes are removed after two zeros, and only there")
    func unescape() {
        #expect(H264RBSP.unescape(hex("67 00 00 03 01 00 00 03 00 00 03 03 ff")) == hex("67 00 00 01 00 00 00 00 03 ff"))
        #expect(H264RBSP.unescape(hex("00 03 00 00 03")) == hex("00 03 00 00"))
        #expect(H264RBSP.unescape(hex("03 03 03")) == hex("03 03 03"))
        #expect(H264RBSP.unescape([UInt8]()) == [])
    }

    @Test("escape inserts 0x03 before 00-03 after two zeros and after a final zero; unescape undoes it")
    func escapeRoundTrip() {
        #expect(H264RBSP.escape(hex("00 00 01 00 00 00 00 00 02 00 00 03 00 00 04")) ==
                hex("00 00 03 01 00 00 03 00 00 03 00 02 00 00 03 03 00 00 04"))
        #expect(H264RBSP.escape(hex("11 00")) == hex("11 00 03"))
        var rng = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let rbsp = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) }
            let escaped = H264RBSP.escape(rbsp)
            #expect(AnnexB.nalUnitRanges(in: [0, 0, 1, 0x67] + escaped).count == 1, "no start code inside")
            var unescaped = H264RBSP.unescape(escaped)
            // A final 0x03 after a single trailing zero is not an emulation prevention byte.
            if rbsp.last == 0 && unescaped.count == rbsp.count + 1 { unescaped.removeLast() }
            #expect(unescaped == rbsp)
        }
    }

    /// H.264 Table 9-2 bit strings and Table 9-3 signed mapping.
    @Test("ue(v) and se(v) decode the spec's code words")
    func expGolomb() throws {
        // 1 | 010 | 011 | 00100 | 00101 | 00110 | 00111 | 0001000 -> 0...7
        var r = H264BitReader(bitsToBytes("1 010 011 00100 00101 00110 00111 0001000"))
        for expected in 0...7 { #expect(try r.readUE() == UInt32(expected)) }
        var s = H264BitReader(bitsToBytes("1 010 011 00100 00101"))
        for expected: Int32 in [0, 1, -1, 2, -2] { #expect(try s.readSE() == expected) }
    }

    @Test("the largest ue(v) fits, one more leading zero is rejected, and reads past the end throw")
    func expGolombLimits() throws {
        var max = BitWriter()
        max.ue(UInt64(UInt32.max) - 1)
        var r = H264BitReader(max.bytes)
        #expect(try r.readUE() == UInt32.max - 1)
        var se = BitWriter()
        se.se(-2_147_483_647)
        se.se(2_147_483_647)
        var s = H264BitReader(se.bytes)
        #expect(try s.readSE() == -2_147_483_647)
        #expect(try s.readSE() == 2_147_483_647)
        var tooLong = H264BitReader([0, 0, 0, 0, 0x80, 0, 0, 0, 0])
        #expect(throws: WireError.self) { try tooLong.readUE() }
        var empty = H264BitReader([0x00])
        #expect(throws: WireError.truncated) { try empty.readUE() }
        var short = H264BitReader([0xFF])
        #expect(throws: WireError.truncated) { try short.readBits(9) }
    }

    @Test("the test BitWriter and the reader agree over random values")
    func writerReaderAgree() throws {
        var rng = SplitMix64(seed: 99)
        var w = BitWriter()
        var values: [(UInt64, Int64, UInt64)] = []
        for _ in 0..<300 {
            let u = UInt64.random(in: 0...UInt64(UInt32.max - 1), using: &rng) >> UInt64.random(in: 0...31, using: &rng)
            let s = Int64.random(in: -100_000...100_000, using: &rng)
            let f = UInt64.random(in: 0...0x1F, using: &rng)
            values.append((u, s, f))
            w.ue(u)
            w.se(s)
            w.bits(f, 5)
        }
        var r = H264BitReader(w.bytes)
        for (u, s, f) in values {
            #expect(try r.readUE() == UInt32(u))
            #expect(try r.readSE() == Int32(s))
            #expect(try r.readBits(5) == UInt32(f))
        }
    }

    private func bitsToBytes(_ text: String) -> [UInt8] {
        var w = BitWriter()
        for c in text where c != " " { w.bit(c == "1") }
        return w.bytes
    }
}
