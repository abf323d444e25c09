import Testing

@testable import OnAirTestPattern

@Suite("TestPatternRenderer: bars, ramp, bouncing square, frame counter and barcode")
struct TestPatternRendererTests {
    static let sizes: [(Int, Int)] = [(160, 120), (640, 360), (1280, 720), (1920, 1080), (3840, 2160), (322, 182)]
    static let frameIndices = [0, 1, 2, 29, 1_000, 123_456, 9_876_543]
    static let time: UInt64 = 1_700_000_000_123

    @Test("the barcode reads back from whole rendered frames, also after a 2x downscale", arguments: sizes)
    func barcodeInRenderedFrames(_ size: (Int, Int)) {
        let (width, height) = size
        var renderer = TestPatternRenderer(width: width, height: height)
        var frame = TestFrame(width: width, height: height, lumaPadding: 9, chromaPadding: 5)
        for (n, frameIndex) in Self.frameIndices.enumerated() {
            let time = Self.time + UInt64(n) * 33
            frame.render(&renderer, frameIndex: frameIndex, milliseconds: time)
            #expect(frame.readBarcode() == time, "\(width)x\(height) frame \(frameIndex)")
            let small = downscale2x(frame.luma, width: width, height: height, stride: frame.lumaStride)
            #expect(readBarcode(small, width: width / 2, height: height / 2) == time)
        }
    }

    @Test("every visible sample is written, stride padding never; equal arguments draw equal frames",
          arguments: [(160, 120), (640, 360), (1920, 1080), (322, 182), (160, 2160), (3840, 120)])
    func coversEveryPixelAndOnlyThose(_ size: (Int, Int)) {
        let (width, height) = size
        var renderer = TestPatternRenderer(width: width, height: height)
        for frameIndex in [0, 77, 123_456] {
            var zeros = TestFrame(width: width, height: height, lumaPadding: 3, chromaPadding: 3, fill: 0x00)
            var ones = TestFrame(width: width, height: height, lumaPadding: 3, chromaPadding: 3, fill: 0xFF)
            zeros.render(&renderer, frameIndex: frameIndex, milliseconds: Self.time)
            ones.render(&renderer, frameIndex: frameIndex, milliseconds: Self.time)
            #expect(zeros.visibleLuma == ones.visibleLuma)
            for y in 0..<height / 2 {
                let row = y * zeros.chromaStride
                #expect(zeros.u[row ..< row + width / 2] == ones.u[row ..< row + width / 2])
                #expect(zeros.v[row ..< row + width / 2] == ones.v[row ..< row + width / 2])
                #expect(zeros.u[row + width / 2 ..< row + zeros.chromaStride].allSatisfy { $0 == 0 })
                #expect(ones.v[row + width / 2 ..< row + ones.chromaStride].allSatisfy { $0 == 0xFF })
            }
            for y in 0..<height {
                let row = y * zeros.lumaStride
                #expect(zeros.luma[row + width ..< row + zeros.lumaStride].allSatisfy { $0 == 0 })
            }
        }
    }

    @Test("consecutive frames differ in the bars, the ramp and the square's position", arguments: sizes)
    func motion(_ size: (Int, Int)) {
        let (width, height) = size
        var renderer = TestPatternRenderer(width: width, height: height)
        var previous = TestFrame(width: width, height: height)
        previous.render(&renderer, frameIndex: 500, milliseconds: Self.time)
        for frameIndex in 501...504 {
            var frame = TestFrame(width: width, height: height)
            frame.render(&renderer, frameIndex: frameIndex, milliseconds: Self.time)
            let barsRow = renderer.rampTop - 1, rampRow = height - 1
            #expect(row(barsRow, of: frame) != row(barsRow, of: previous), "bars, frame \(frameIndex)")
            #expect(row(rampRow, of: frame) != row(rampRow, of: previous), "ramp, frame \(frameIndex)")
            #expect(whiteCentroid(frame, renderer) != whiteCentroid(previous, renderer), "square, frame \(frameIndex)")
            previous = frame
        }
    }

    @Test("the square's path: a triangle wave between 0 and the range")
    func bounce() {
        #expect((0...12).map { TestPatternRenderer.bounce($0, speed: 1, range: 4) } == [0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4])
        #expect((0...4).map { TestPatternRenderer.bounce($0, speed: 3, range: 4) } == [0, 3, 2, 1, 4])
        #expect(TestPatternRenderer.bounce(Int.max, speed: 7, range: 100) <= 100)
        #expect(TestPatternRenderer.bounce(5, speed: 2, range: 0) == 0)
    }

    @Test("the counter shows the frame index in seven segments (at least 6 digits, the last digits when too long)",
          arguments: sizes + [(160, 2160), (3840, 120)])
    func counterDigits(_ size: (Int, Int)) {
        let (width, height) = size
        var renderer = TestPatternRenderer(width: width, height: height)
        let counter = renderer.counter
        // A sixth of the height (rounded to even), unless the frame is too narrow for that.
        if width >= height { #expect(counter.digitHeight >= height / 6 - 1) }
        let widest = counter.box(digits: counter.maximumDigits)
        #expect(widest.x >= 0 && widest.x + widest.width <= width)
        #expect(widest.y >= renderer.bandHeight && widest.y + widest.height <= renderer.rampTop)
        for frameIndex in [0, 7, 42, 123_456, 9_876_543, 31_415_926_535] {
            var frame = TestFrame(width: width, height: height)
            frame.render(&renderer, frameIndex: frameIndex, milliseconds: Self.time)
            let digits = counter.digitCount(for: frameIndex)
            var shown = 0
            for index in 0..<digits {
                shown = shown * 10 + readDigit(frame, counter: counter, index: index, digits: digits)
            }
            var modulus = 1
            for _ in 0..<digits { modulus *= 10 }
            #expect(shown == frameIndex % modulus, "\(width)x\(height): \(frameIndex) shown as \(shown)")
        }
        #expect(counter.digitCount(for: 5) == 6)
        #expect(counter.digitCount(for: 1_234_567) == min(7, counter.maximumDigits))
    }

    @Test("colour bars carry BT.601 video-range colours; the barcode band's chroma is neutral")
    func colours() {
        let (width, height) = (1280, 720)
        var renderer = TestPatternRenderer(width: width, height: height)
        var frame = TestFrame(width: width, height: height)
        frame.render(&renderer, frameIndex: 0, milliseconds: Self.time)
        let y = renderer.rampTop - 2
        // 75 % yellow, the second of eight bars (frame 0 is unscrolled).
        let x = 3 * width / 16
        #expect(frame.lumaAt(x: x, y: y) == 162)
        #expect(frame.uAt(x: x / 2, y: y / 2) == 44 && frame.vAt(x: x / 2, y: y / 2) == 142)
        // 75 % blue, the seventh.
        let blue = 13 * width / 16
        #expect(frame.lumaAt(x: blue, y: y) == 35 && frame.uAt(x: blue / 2, y: y / 2) == 212)
        for x in 0..<width / 2 { #expect(frame.uAt(x: x, y: 0) == 128) }
    }

    private func row(_ y: Int, of frame: TestFrame) -> ArraySlice<UInt8> {
        frame.luma[y * frame.lumaStride ..< y * frame.lumaStride + frame.width]
    }

    /// Where the square is: the mean position of the luma-235 pixels over the bars (whose
    /// brightest is 75 % white, 180) outside the counter's box; nil when none is visible.
    private func whiteCentroid(_ frame: TestFrame, _ renderer: TestPatternRenderer) -> [Int]? {
        let box = renderer.counter.box(digits: renderer.counter.digitCount(for: 0))
        var count = 0, sumX = 0, sumY = 0
        frame.luma.withUnsafeBufferPointer { luma in
            for y in renderer.bandHeight..<renderer.rampTop {
                let row = y * frame.lumaStride
                for x in 0..<frame.width where luma[row + x] == 235 {
                    if (box.x..<box.x + box.width).contains(x) && (box.y..<box.y + box.height).contains(y) { continue }
                    count += 1
                    sumX += x
                    sumY += y
                }
            }
        }
        return count == 0 ? nil : [sumX / count, sumY / count]
    }

    /// Reads one digit by the luma at the centre of each segment, against the usual
    /// seven-segment shapes (written out here independently of the renderer's table).
    private func readDigit(_ frame: TestFrame, counter: SevenSegmentCounter, index: Int, digits: Int) -> Int {
        let shapes = ["abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg"]
        let left = counter.digitLeft(index, digits: digits), top = counter.top + counter.padding
        var lit = ""
        for (name, segment) in zip("abcdefg", counter.segments) {
            let luma = frame.lumaAt(x: left + segment.x + segment.width / 2, y: top + segment.y + segment.height / 2)
            if luma > 128 { lit.append(name) }
        }
        return shapes.firstIndex(of: lit) ?? -1
    }
}
