/// The frame counter: decimal digits in a seven-segment font, white on a black box, with
/// the unlit segments in dark grey so that a digit's cell stays readable (and its size
/// stays fixed) whatever the number. Drawn with rectangle fills only.
///
/// Segments, as on a pocket calculator:
/// ```
///  aaa
/// f   b
///  ggg
/// e   c
///  ddd
/// ```
/// The horizontals own the corners, so the verticals run between them.
struct SevenSegmentCounter: Sendable {
    /// A segment's rectangle relative to its digit's top-left corner.
    struct Segment: Sendable {
        var x, y, width, height: Int
    }

    /// Lit segments per digit, bit 0 = a ... bit 6 = g.
    static let glyphs: [UInt8] = [
        0b011_1111, // 0: abcdef
        0b000_0110, // 1: bc
        0b101_1011, // 2: abdeg
        0b100_1111, // 3: abcdg
        0b110_0110, // 4: bcfg
        0b110_1101, // 5: acdfg
        0b111_1101, // 6: acdefg
        0b000_0111, // 7: abc
        0b111_1111, // 8: all
        0b110_1111, // 9: abcdfg
    ]

    static let litLuma: UInt8 = 235
    static let unlitLuma: UInt8 = 40
    /// At least this many digits (leading zeros), so the box does not grow every decade.
    static let minimumDigits = 6

    let digitWidth: Int
    let digitHeight: Int
    let gap: Int
    let padding: Int
    /// Top of the box (the digits start `padding` lower).
    let top: Int
    /// Most digits that fit across the frame; higher counts show their last digits.
    let maximumDigits: Int
    let frameWidth: Int
    /// In the order a...g.
    let segments: [Segment]

    /// A counter about a sixth of the frame high, `top` rows down, centred; smaller when
    /// the frame is too narrow for `minimumDigits` digits at that height.
    init(frameWidth: Int, frameHeight: Int, top: Int) {
        let margin = Self.even(max(2, frameWidth / 48))
        // Box width for n digits of height h: n*h/2 + (n-1)*h/5 + 2*h/5 = h*(7n+2)/10.
        let n = Self.minimumDigits
        let heightForWidth = (frameWidth - 2 * margin) * 10 / (7 * n + 2)
        let height = Self.even(max(10, min(frameHeight / 6, heightForWidth)))
        digitHeight = height
        digitWidth = Self.even(height / 2)
        gap = Self.even(height / 5)
        padding = Self.even(height / 5)
        self.top = Self.even(top + 1)
        self.frameWidth = frameWidth
        maximumDigits = max(1, (frameWidth - 2 * margin - 2 * padding + gap) / (digitWidth + gap))

        let thickness = max(2, height / 8)
        let w = digitWidth, h = height
        let middle = (h - thickness) / 2
        segments = [
            Segment(x: 0, y: 0, width: w, height: thickness), // a
            Segment(x: w - thickness, y: thickness, width: thickness, height: middle - thickness), // b
            Segment(x: w - thickness, y: middle + thickness, width: thickness, height: h - 2 * thickness - middle), // c
            Segment(x: 0, y: h - thickness, width: w, height: thickness), // d
            Segment(x: 0, y: middle + thickness, width: thickness, height: h - 2 * thickness - middle), // e
            Segment(x: 0, y: thickness, width: thickness, height: middle - thickness), // f
            Segment(x: 0, y: middle, width: w, height: thickness), // g
        ]
    }

    /// Digits drawn for `value`: at least `minimumDigits`, at most `maximumDigits`.
    func digitCount(for value: Int) -> Int {
        var count = 1, rest = value / 10
        while rest > 0 { count += 1; rest /= 10 }
        return min(maximumDigits, max(Self.minimumDigits, count))
    }

    /// The box for `digits` digits: x, y, width, height (even, so its chroma is exact).
    func box(digits: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let width = digits * digitWidth + (digits - 1) * gap + 2 * padding
        return (Self.even(max(0, (frameWidth - width) / 2)), top, width, digitHeight + 2 * padding)
    }

    /// Left edge of digit `index` (0 = most significant) in a box of `digits` digits.
    func digitLeft(_ index: Int, digits: Int) -> Int {
        box(digits: digits).x + padding + index * (digitWidth + gap)
    }

    /// Draws `value` (>= 0; only its last `maximumDigits` digits when longer).
    func draw(_ value: Int, on canvas: I420Canvas) {
        let digits = digitCount(for: value)
        let box = box(digits: digits)
        canvas.fill(x: box.x, y: box.y, width: box.width, height: box.height, color: .black)
        var rest = value
        for index in stride(from: digits - 1, through: 0, by: -1) {
            let glyph = Self.glyphs[rest % 10]
            rest /= 10
            let left = digitLeft(index, digits: digits)
            let digitTop = top + padding
            for (bit, segment) in segments.enumerated() {
                let lit = glyph >> UInt8(bit) & 1 == 1
                canvas.fillLuma(x: left + segment.x, y: digitTop + segment.y,
                                width: segment.width, height: segment.height,
                                value: lit ? Self.litLuma : Self.unlitLuma)
            }
        }
    }

    static func even(_ value: Int) -> Int { value & ~1 }
}
