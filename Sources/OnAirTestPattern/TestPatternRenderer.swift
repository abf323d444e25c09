/// Draws the broadcaster's test pattern into caller-owned yuv420p frames:
///
/// - the wall-clock barcode (`TestPatternBarcode`) in the top twelfth of the frame;
/// - below it, 75 % colour bars (white, yellow, cyan, green, magenta, red, blue, black)
///   scrolling to the right, and along the bottom sixth a grey ramp scrolling to the left,
///   so any stall or repeated frame is visible at a glance;
/// - a white square with a black centre bouncing off the edges;
/// - the frame index in large seven-segment digits (about a sixth of the frame high),
///   white on a black box, centred under the barcode.
///
/// A frame is a function of its arguments only, so equal arguments draw equal frames. Every
/// pixel of the `width` x `height` planes is written and nothing past a row's `width`
/// (stride padding stays untouched). Rendering is row fills and row copies from rows
/// precomputed in `init`: no allocation and no per-pixel work per frame. Measured on one
/// AMD EPYC core, release build: 0.06 ms per 1920x1080 frame with warm caches, 0.25 ms
/// cycling through 16 frame buffers, 0.4 ms at 3840x2160; about 1 ms at 1080p in debug.
public struct TestPatternRenderer: Sendable {
    /// Frame sizes the pattern is designed for (even numbers within these).
    public static let supportedWidths = 160...3840
    public static let supportedHeights = 120...2160

    public let width: Int
    public let height: Int

    /// Luma rows `[0, bandHeight)` hold the barcode.
    let bandHeight: Int
    /// The ramp starts here (even); the bars fill `[bandHeight, rampTop)`.
    let rampTop: Int
    /// One period of the bars (`width` bytes), stored twice so that any scrolled row is a
    /// contiguous window; chroma likewise with `width / 2` per period.
    private let barsLuma: [UInt8]
    private let barsU: [UInt8]
    private let barsV: [UInt8]
    /// One period of the ramp, twice (neutral chroma).
    private let rampLuma: [UInt8]
    private let neutralChroma: [UInt8]
    /// Scroll speed in luma pixels per frame (even, so chroma scrolls by whole samples).
    let scrollStep: Int
    /// The bouncing square: side (even), and speeds in chroma samples per frame.
    let squareSide: Int
    let squareSpeedX: Int
    let squareSpeedY: Int
    let counter: SevenSegmentCounter

    /// - Precondition: `width` and `height` are even and within `supportedWidths` and
    ///   `supportedHeights`.
    public init(width: Int, height: Int) {
        precondition(Self.supportedWidths.contains(width) && Self.supportedHeights.contains(height),
                     "test pattern size \(width)x\(height) outside \(Self.supportedWidths)x\(Self.supportedHeights)")
        precondition(width.isMultiple(of: 2) && height.isMultiple(of: 2), "yuv420p needs an even width and height")
        self.width = width
        self.height = height
        bandHeight = TestPatternBarcode.bandHeight(frameHeight: height)
        rampTop = (height - height / 6) & ~1

        let bars: [YUVColor] = [
            YUVColor(red: 0.75, green: 0.75, blue: 0.75), YUVColor(red: 0.75, green: 0.75, blue: 0),
            YUVColor(red: 0, green: 0.75, blue: 0.75), YUVColor(red: 0, green: 0.75, blue: 0),
            YUVColor(red: 0.75, green: 0, blue: 0.75), YUVColor(red: 0.75, green: 0, blue: 0),
            YUVColor(red: 0, green: 0, blue: 0.75), YUVColor(red: 0, green: 0, blue: 0),
        ]
        // Bar edges on the chroma grid, so no chroma sample straddles two bars.
        let chromaWidth = width / 2
        let barOfChroma = (0..<chromaWidth).map { $0 * bars.count / chromaWidth }
        let barsLumaPeriod = (0..<width).map { bars[barOfChroma[$0 / 2]].y }
        barsLuma = barsLumaPeriod + barsLumaPeriod
        let uPeriod = barOfChroma.map { bars[$0].u }, vPeriod = barOfChroma.map { bars[$0].v }
        barsU = uPeriod + uPeriod
        barsV = vPeriod + vPeriod
        // A triangle 16 -> 235 -> 16 across the width: scrolls without a seam.
        let rampPeriod = (0..<width).map { x -> UInt8 in
            let distance = abs(2 * x - width)  // width at the edges, 0 in the middle
            return UInt8(235 - 219 * distance / width)
        }
        rampLuma = rampPeriod + rampPeriod
        neutralChroma = Array(repeating: 128, count: chromaWidth)

        scrollStep = 2 * max(1, width / 640)
        squareSide = max(8, height / 6) & ~1
        squareSpeedX = max(1, width / 320)
        squareSpeedY = max(1, height / 240)
        counter = SevenSegmentCounter(frameWidth: width, frameHeight: height,
                                      top: bandHeight + max(2, height / 48))
    }

    /// Draws frame `frameIndex` (>= 0) stamped with `wallClockMilliseconds` (Unix time, the
    /// moment the frame is captured) into planes of `width` x `height` luma and
    /// `width / 2` x `height / 2` chroma.
    ///
    /// `mutating` leaves room for per-stream state (e.g. caches) without changing callers;
    /// today the frame depends on the arguments only.
    public mutating func render(frameIndex: Int, wallClockMilliseconds: UInt64,
                                luma: UnsafeMutablePointer<UInt8>, lumaStride: Int,
                                chromaU: UnsafeMutablePointer<UInt8>, chromaV: UnsafeMutablePointer<UInt8>,
                                chromaStride: Int) {
        precondition(frameIndex >= 0, "frame index must not be negative")
        precondition(lumaStride >= width && chromaStride >= width / 2, "stride shorter than a row")
        let canvas = I420Canvas(luma: luma, lumaStride: lumaStride, chromaU: chromaU, chromaV: chromaV,
                                chromaStride: chromaStride, width: width, height: height)
        drawBackground(frameIndex: frameIndex, on: canvas)
        drawSquare(frameIndex: frameIndex, on: canvas)
        counter.draw(frameIndex, on: canvas)
        TestPatternBarcode.write(milliseconds: wallClockMilliseconds, luma: luma, lumaStride: lumaStride,
                                 chromaU: chromaU, chromaV: chromaV, chromaStride: chromaStride,
                                 width: width, height: height)
    }

    /// Bars scrolling right over `[bandHeight, rampTop)`, the ramp scrolling left below.
    /// Chroma rows start at `bandHeight / 2`: the barcode then overwrites the one chroma row
    /// it shares with the bars when `bandHeight` is odd.
    private func drawBackground(frameIndex: Int, on canvas: I420Canvas) {
        let offset = (frameIndex % width) * scrollStep % width  // even
        barsLuma.withUnsafeBufferPointer { bars in
            canvas.copyLumaRows(bandHeight, rampTop, from: bars.baseAddress! + (width - offset))
        }
        barsU.withUnsafeBufferPointer { u in
            barsV.withUnsafeBufferPointer { v in
                let start = (width - offset) / 2
                canvas.copyChromaRows(bandHeight / 2, rampTop / 2, u: u.baseAddress! + start, v: v.baseAddress! + start)
            }
        }
        rampLuma.withUnsafeBufferPointer { ramp in
            canvas.copyLumaRows(rampTop, height, from: ramp.baseAddress! + offset)
        }
        neutralChroma.withUnsafeBufferPointer { neutral in
            canvas.copyChromaRows(rampTop / 2, height / 2, u: neutral.baseAddress!, v: neutral.baseAddress!)
        }
    }

    /// The square bounces between the barcode and the bottom, and across the full width.
    private func drawSquare(frameIndex: Int, on canvas: I420Canvas) {
        let top = (bandHeight + 1) & ~1
        let x = 2 * Self.bounce(frameIndex, speed: squareSpeedX, range: (width - squareSide) / 2)
        let y = top + 2 * Self.bounce(frameIndex, speed: squareSpeedY, range: (height - top - squareSide) / 2)
        canvas.fill(x: x, y: y, width: squareSide, height: squareSide, color: .white)
        let inset = (squareSide / 4) & ~1
        canvas.fill(x: x + inset, y: y + inset, width: squareSide - 2 * inset, height: squareSide - 2 * inset,
                    color: .black)
    }

    /// A triangle wave: position in `0...range` after `frame` steps of `speed`, reflecting
    /// at both ends.
    static func bounce(_ frame: Int, speed: Int, range: Int) -> Int {
        guard range > 0 else { return 0 }
        let period = 2 * range
        let phase = (frame % period) * speed % period
        return phase <= range ? phase : period - phase
    }
}
