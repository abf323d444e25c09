import Testing

@testable import OnAirTestPattern
import OnAirTestSupport

@Suite("TestPatternBarcode: 48-bit wall clock + CRC-16/CCITT-FALSE in 2 x 32 cells")
struct TestPatternBarcodeTests {
    static let times: [UInt64] = [0, 1, 1_700_000_000_123, 0x0123_4567_89AB, 0xAAAA_AAAA_AAAA, TestPatternBarcode.timestampMask]

    /// (width, height, luma padding, chroma padding): padded rows as decoders and
    /// allocators make them, some of odd length.
    static let layouts: [(Int, Int, Int, Int)] = [
        (160, 120, 0, 0), (160, 120, 13, 7), (640, 360, 0, 0), (640, 360, 64, 32),
        (1280, 720, 7, 3), (1920, 1080, 0, 0), (1920, 1080, 129, 65), (322, 182, 1, 1),
    ]

    @Test("CRC-16/CCITT-FALSE check value: \"123456789\" -> 0x29B1")
    func crcCheckValue() {
        #expect(TestPatternBarcode.crc16(Array("123456789".utf8)) == 0x29B1)
        #expect(TestPatternBarcode.crc16([UInt8]()) == 0xFFFF)
    }

    @Test("payloads equal Python's binascii.crc_hqx(bytes, 0xFFFF) (the same vectors as the Python reader's test)")
    func payloadVectors() {
        #expect(TestPatternBarcode.payload(milliseconds: 1_700_000_000_123) == 0x018B_CFE5_687B_E46B)
        #expect(TestPatternBarcode.payload(milliseconds: 0) == 0x0E10)
        #expect(TestPatternBarcode.payload(milliseconds: 0xFFFF_FFFF_FFFF) == 0xFFFF_FFFF_FFFF_99CF)
        #expect(TestPatternBarcode.payload(milliseconds: 0x0123_4567_89AB) == 0x0123_4567_89AB_C475)
        // Only the low 48 bits of the time are sent.
        #expect(TestPatternBarcode.payload(milliseconds: 1 << 48 | 5) == TestPatternBarcode.payload(milliseconds: 5))
        // The CRC over the 6 bytes equals the generic CRC over the same bytes.
        let time: UInt64 = 1_700_000_000_123
        let bytes = (0..<6).map { UInt8(truncatingIfNeeded: time >> UInt64(40 - 8 * $0)) }
        #expect(TestPatternBarcode.crc16(timestamp: time) == TestPatternBarcode.crc16(bytes))
    }

    @Test("round trip at each size and stride; padding untouched; band chroma neutral; cells 16/235",
          arguments: layouts)
    func roundTrip(_ layout: (Int, Int, Int, Int)) {
        let (width, height, lumaPadding, chromaPadding) = layout
        for time in Self.times {
            var frame = TestFrame(width: width, height: height, lumaPadding: lumaPadding, chromaPadding: chromaPadding)
            frame.writeBarcode(milliseconds: time)
            #expect(frame.readBarcode() == time, "\(width)x\(height) t=\(time)")

            let band = TestPatternBarcode.bandHeight(frameHeight: height)
            // Counted, then expected once: a per-sample #expect costs seconds at 1080p.
            var paddingWritten = 0, chromaNotNeutral = 0, wrongCells = 0
            for y in 0..<height {
                for x in width..<frame.lumaStride where frame.lumaAt(x: x, y: y) != 0x5A { paddingWritten += 1 }
            }
            for y in 0..<height / 2 {
                for x in width / 2..<frame.chromaStride where frame.uAt(x: x, y: y) != 0x5A || frame.vAt(x: x, y: y) != 0x5A {
                    paddingWritten += 1
                }
            }
            for y in 0..<(band + 1) / 2 {
                for x in 0..<width / 2 where frame.uAt(x: x, y: y) != 128 || frame.vAt(x: x, y: y) != 128 {
                    chromaNotNeutral += 1
                }
            }
            // Every luma sample of the band is exactly 16 or 235, as its cell's bit says.
            let payload = TestPatternBarcode.payload(milliseconds: time)
            let columnOf = (0..<width).map { x in (0..<TestPatternBarcode.columns).last { $0 * width / TestPatternBarcode.columns <= x }! }
            for y in 0..<band {
                let cellRow = (0..<TestPatternBarcode.rows).last { $0 * height / TestPatternBarcode.rowDivisor <= y }!
                for x in 0..<width {
                    let bit = payload >> UInt64(63 - (cellRow * 32 + columnOf[x])) & 1
                    if frame.lumaAt(x: x, y: y) != (bit == 1 ? 235 : 16) { wrongCells += 1 }
                }
            }
            #expect(paddingWritten == 0 && chromaNotNeutral == 0 && wrongCells == 0)
            // Below the band nothing is touched.
            #expect(frame.lumaAt(x: width / 2, y: band) == 0x5A)
            #expect(frame.uAt(x: 0, y: (band + 1) / 2) == 0x5A)
        }
    }

    @Test("every single flipped cell is rejected by the CRC", arguments: [(160, 120), (1280, 720)])
    func flippedCellRejected(_ size: (Int, Int)) {
        let (width, height) = size
        let time: UInt64 = 1_700_000_000_123
        var clean = TestFrame(width: width, height: height)
        clean.writeBarcode(milliseconds: time)
        for bit in 0..<TestPatternBarcode.bitCount {
            var frame = clean
            let column = bit % 32, row = bit / 32
            let x0 = column * width / 32, x1 = (column + 1) * width / 32
            let y0 = row * height / 24, y1 = (row + 1) * height / 24
            for y in y0..<y1 {
                for x in x0..<x1 { frame.luma[y * frame.lumaStride + x] = 251 - frame.luma[y * frame.lumaStride + x] }
            }
            #expect(frame.readBarcode() == nil, "bit \(bit)")
            let raw = frame.luma.withUnsafeBufferPointer {
                TestPatternBarcode.readPayload(luma: $0.baseAddress!, stride: width, width: width, height: height)
            }
            #expect(raw == TestPatternBarcode.payload(milliseconds: time) ^ (1 << UInt64(63 - bit)))
        }
    }

    @Test("reads through deterministic noise of +-40 on every luma sample", arguments: layouts)
    func noise(_ layout: (Int, Int, Int, Int)) {
        let (width, height, lumaPadding, chromaPadding) = layout
        var rng = SplitMix64(seed: UInt64(width * 7919 + height))
        for time in Self.times {
            var frame = TestFrame(width: width, height: height, lumaPadding: lumaPadding, chromaPadding: chromaPadding)
            frame.writeBarcode(milliseconds: time)
            addNoise(&frame.luma, amplitude: 40, using: &rng)
            #expect(frame.readBarcode() == time, "\(width)x\(height) t=\(time)")
        }
    }

    @Test("reads after a 2x box downscale of the luma plane (with and without noise)", arguments: layouts)
    func downscaled(_ layout: (Int, Int, Int, Int)) {
        let (width, height, lumaPadding, chromaPadding) = layout
        var rng = SplitMix64(seed: 99)
        for time in Self.times {
            var frame = TestFrame(width: width, height: height, lumaPadding: lumaPadding, chromaPadding: chromaPadding)
            frame.writeBarcode(milliseconds: time)
            let small = downscale2x(frame.luma, width: width, height: height, stride: frame.lumaStride)
            #expect(readBarcode(small, width: width / 2, height: height / 2) == time, "\(width)x\(height) t=\(time)")
            var noisy = small
            addNoise(&noisy, amplitude: 40, using: &rng)
            #expect(readBarcode(noisy, width: width / 2, height: height / 2) == time, "noisy \(width)x\(height)")
        }
    }

    @Test("no barcode: flat, black, white and random frames and frames under 32x24 read as nil")
    func noBarcode() {
        for value: UInt8 in [0, 16, 128, 235, 255] {
            #expect(readBarcode(Array(repeating: value, count: 640 * 360), width: 640, height: 360) == nil, "\(value)")
        }
        var rng = SplitMix64(seed: 5)
        var randomFrames = 0
        for _ in 0..<50 {
            let plane = (0..<(320 * 180)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if readBarcode(plane, width: 320, height: 180) != nil { randomFrames += 1 }
        }
        #expect(randomFrames == 0)
        #expect(readBarcode(Array(repeating: 0, count: 31 * 24), width: 31, height: 24) == nil)
        #expect(readBarcode(Array(repeating: 0, count: 32 * 23), width: 32, height: 23) == nil)
    }

    @Test("inner half: a quarter of the cell (rounded down) dropped at each end")
    func innerHalf() {
        func inner(_ index: Int, _ count: Int, _ length: Int) -> [Int] {
            let (start, end) = TestPatternBarcode.innerHalf(of: index, count: count, length: length)
            return [start, end]
        }
        #expect(inner(0, 32, 1920) == [15, 45])
        #expect(inner(1, 24, 1080) == [56, 79])  // cell [45, 90)
        #expect(inner(31, 32, 160) == [156, 159])  // cell [155, 160)
        #expect(inner(0, 24, 24) == [0, 1])
    }
}
