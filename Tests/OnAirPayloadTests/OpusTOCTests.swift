import OnAirWire
import Testing

@testable import OnAirPayload
import OnAirTestSupport

@Suite("Opus TOC and framing (RFC 6716 §3.1, §3.2)")
struct OpusTOCTests {
    /// RFC 6716 §3.1 Table 2, row by row: configurations, mode, bandwidth, frame sizes (ms).
    static let table2: [(ClosedRange<Int>, OpusTOC.Mode, OpusTOC.Bandwidth, [Double])] = [
        (0...3, .silk, .narrowband, [10, 20, 40, 60]),
        (4...7, .silk, .mediumband, [10, 20, 40, 60]),
        (8...11, .silk, .wideband, [10, 20, 40, 60]),
        (12...13, .hybrid, .superWideband, [10, 20]),
        (14...15, .hybrid, .fullband, [10, 20]),
        (16...19, .celt, .narrowband, [2.5, 5, 10, 20]),
        (20...23, .celt, .wideband, [2.5, 5, 10, 20]),
        (24...27, .celt, .superWideband, [2.5, 5, 10, 20]),
        (28...31, .celt, .fullband, [2.5, 5, 10, 20]),
    ]

    @Test("all 256 TOC bytes follow Table 2, the s bit and the c code")
    func everyTOC() {
        for byte in 0...255 {
            let toc = OpusTOC(UInt8(byte))
            let row = Self.table2.first { $0.0.contains(byte >> 3) }!
            #expect(toc.config == byte >> 3)
            #expect(toc.mode == row.1 && toc.bandwidth == row.2, "config \(toc.config)")
            let milliseconds = row.3[(byte >> 3) - row.0.lowerBound]
            #expect(toc.frameSamples == Int(milliseconds * 48), "config \(toc.config)")
            #expect(toc.isStereo == (byte & 0x04 != 0))
            #expect(toc.frameCountCode.rawValue == UInt8(byte & 0x03))
        }
    }

    static let config1SILK20ms: UInt8 = 1 << 3   // 960 samples per frame
    static let config3SILK60ms: UInt8 = 3 << 3   // 2880 samples per frame

    @Test("frame counts and durations of the four codes (§3.2.2-§3.2.5)")
    func durations() throws {
        let celtFB20Stereo = try OpusPacketInfo(packet: [0xFC] + [UInt8](repeating: 7, count: 100))
        #expect(celtFB20Stereo.frameCount == 1 && celtFB20Stereo.durationSamples == 960 && celtFB20Stereo.toc.isStereo)
        #expect(try OpusPacketInfo(packet: [0xF8]).durationSamples == 960, "a TOC byte alone (DTX) still has a duration")
        #expect(try OpusPacketInfo(packet: [Self.config1SILK20ms | 1] + [UInt8](repeating: 0, count: 20)).durationSamples == 1920)
        #expect(try OpusPacketInfo(packet: [Self.config1SILK20ms | 2, 5] + [UInt8](repeating: 0, count: 12)).frameCount == 2)
        // 252...255 take a second byte: 252 + 4·1 = 256.
        #expect(try OpusPacketInfo(packet: [Self.config1SILK20ms | 2, 252, 1] + [UInt8](repeating: 0, count: 256)).frameCount == 2)
        // Code 3 CBR: 3 frames of 10 bytes.
        let cbr = try OpusPacketInfo(packet: [Self.config1SILK20ms | 3, 0x03] + [UInt8](repeating: 0, count: 30))
        #expect(cbr.frameCount == 3 && cbr.durationSamples == 2880)
        // Code 3 VBR with padding: M = 2, 3 bytes of padding, first frame 4 bytes, second 6.
        let vbr = try OpusPacketInfo(packet: [Self.config1SILK20ms | 3, 0xC2, 3, 4] + [UInt8](repeating: 0, count: 4 + 6 + 3))
        #expect(vbr.frameCount == 2)
        // Padding length 255 continues: 254 + 10 bytes.
        let padded = try OpusPacketInfo(packet: [Self.config1SILK20ms | 3, 0x41, 255, 10] + [UInt8](repeating: 0, count: 264 + 8))
        #expect(padded.frameCount == 1)
        // 2 × 60 ms = 120 ms, the most a packet may hold.
        #expect(try OpusPacketInfo(packet: [Self.config3SILK60ms | 3, 0x02, 0, 0]).durationSamples == 5760)
        // 48 CELT frames of 2.5 ms = 120 ms.
        #expect(try OpusPacketInfo(packet: [16 << 3 | 3, 48]).durationSamples == 5760)
    }

    @Test("packets breaking §3.4 [R1]-[R7] throw")
    func invalid() {
        let cases: [(String, [UInt8])] = [
            ("R1 empty", []),
            ("R2 code 0 frame over 1275 bytes", [0xF8] + [UInt8](repeating: 0, count: 1276)),
            ("R3 code 1 odd length", [Self.config1SILK20ms | 1, 0, 0, 0]),
            ("R4 code 2 first frame overruns", [Self.config1SILK20ms | 2, 10, 0, 0]),
            ("R4 code 2 second length byte missing", [Self.config1SILK20ms | 2, 253]),
            ("R5 code 3 without a count byte", [Self.config1SILK20ms | 3]),
            ("R5 code 3 zero frames", [Self.config1SILK20ms | 3, 0x00]),
            ("R5 code 3 over 120 ms", [Self.config3SILK60ms | 3, 0x03, 0, 0, 0]),
            ("R6 code 3 CBR not divisible", [Self.config1SILK20ms | 3, 0x03, 0, 0, 0, 0]),
            ("R6 code 3 padding overruns", [Self.config1SILK20ms | 3, 0x41, 20, 0]),
            ("R6 padding length cut short", [Self.config1SILK20ms | 3, 0x41, 255]),
            ("R7 code 3 VBR lengths overrun", [Self.config1SILK20ms | 3, 0x82, 9, 0, 0]),
        ]
        for (name, packet) in cases {
            #expect(throws: WireError.self, "\(name)") { try OpusPacketInfo(packet: packet) }
        }
    }

    @Test("random bytes never trap")
    func random() {
        var rng = SplitMix64(seed: 51)
        for _ in 0..<20_000 {
            let packet = (0..<Int.random(in: 0...12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if let info = try? OpusPacketInfo(packet: packet) {
                #expect(info.frameCount >= 1 && info.durationSamples <= OpusPacketInfo.maxPacketSamples)
            }
        }
    }
}
