/// A video-range BT.601 colour (what x264 assumes for SD and what players assume when a
/// stream does not say): luma 16...235, chroma 16...240 around 128.
struct YUVColor: Hashable, Sendable {
    var y: UInt8
    var u: UInt8
    var v: UInt8

    /// A grey: neutral chroma.
    init(luma: UInt8) {
        self.init(y: luma, u: 128, v: 128)
    }

    init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    /// From gamma-corrected R'G'B' in 0...1 (ITU-R BT.601-7 §2.5.1-2.5.3, video range).
    init(red: Double, green: Double, blue: Double) {
        let y = 16 + 65.481 * red + 128.553 * green + 24.966 * blue
        let u = 128 - 37.797 * red - 74.203 * green + 112.0 * blue
        let v = 128 + 112.0 * red - 93.786 * green - 18.214 * blue
        self.init(y: Self.byte(y), u: Self.byte(u), v: Self.byte(v))
    }

    private static func byte(_ value: Double) -> UInt8 {
        UInt8(min(255, max(0, value.rounded())))
    }

    static let black = YUVColor(luma: 16)
    static let white = YUVColor(luma: 235)
}
