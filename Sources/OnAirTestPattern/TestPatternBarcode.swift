// OnAirTestPattern: the broadcaster's built-in source, made for measuring glass-to-glass
// latency. A picture that visibly moves, a large frame counter, a wall-clock barcode at the
// top of every frame (TestPatternBarcode), and a tone that beeps on every wall-clock second
// (TestPatternTone).
//
// Everything here is pure: the caller owns the yuv420p planes and the sample buffers, and
// passes the time in. Nothing allocates per frame or per audio buffer.

/// The wall-clock barcode drawn at the top of every test-pattern frame, so that a viewer can
/// read, from a decoded frame, the time at which the broadcaster drew it.
///
/// **Payload (64 bits).** The Unix wall-clock time in milliseconds as 48 bits, most
/// significant bit first, followed by the CRC-16/CCITT-FALSE (polynomial 0x1021, initial
/// value 0xFFFF, not reflected, no final XOR) of those 48 bits as 6 big-endian bytes.
///
/// **Layout.** A band of 2 rows x 32 columns of cells at the top of the luma plane. Bit `i`
/// (0 is the timestamp's most significant bit) is the cell in column `i % 32`, row `i / 32`.
/// Cell `(c, r)` covers `x` in `[c*W/32, (c+1)*W/32)` and `y` in `[r*H/24, (r+1)*H/24)`,
/// integer division, for a frame of `W` x `H`. A 1 is luma 235, a 0 is luma 16 (video
/// range white and black); the chroma under the band is neutral 128.
///
/// **Reading.** For each cell, average the luma over its inner half (the central 50 % in
/// `x` and in `y`: `[x0 + w/4, x1 - w/4)` and likewise in `y`, where `w = x1 - x0`) and
/// call the bit 1 when the average is at least 128. Accept the timestamp only when the CRC
/// matches.
///
/// Why this shape:
/// - Cells are defined as fractions of the frame, so the band still reads after the frame
///   is scaled (an HLS rendition, a player's output size, a screenshot).
/// - Cells are big (1/32 of the width, 1/24 of the height) and only their centres are read,
///   so blocking, ringing and colour bleed from lossy H.264 at cell edges do not matter.
/// - The CRC turns a frame whose band is damaged (packet loss, a frame mixing two
///   pictures, a bit flipped by noise) into "no reading" instead of a wrong time.
///
/// Tests/Interop/testpattern.py reads the same barcode from decoded frames in Python.
public enum TestPatternBarcode {
    /// Cells per row of the band.
    public static let columns = 32
    /// Rows of cells in the band.
    public static let rows = 2
    /// A cell is `H / rowDivisor` high: the band takes `rows / rowDivisor` (1/12) of the frame.
    public static let rowDivisor = 24
    /// Bits in the band: the timestamp, then the CRC.
    public static let bitCount = 64
    /// Bits of the millisecond timestamp (enough until the year 10889).
    public static let timestampBits = 48
    /// The timestamp is taken modulo 2^48.
    public static let timestampMask: UInt64 = (1 << 48) - 1
    /// Luma of a 1 cell (video-range white).
    public static let oneLuma: UInt8 = 235
    /// Luma of a 0 cell (video-range black).
    public static let zeroLuma: UInt8 = 16
    /// Chroma under the band.
    public static let neutralChroma: UInt8 = 128
    /// A cell whose inner-half average luma is at least this reads as 1.
    public static let threshold = 128

    /// The smallest frame whose every cell is at least one pixel wide and high.
    public static let minimumWidth = columns
    public static let minimumHeight = rowDivisor

    /// The luma rows `[0, bandHeight)` that the band covers in a frame `height` rows high.
    public static func bandHeight(frameHeight height: Int) -> Int {
        rows * height / rowDivisor
    }

    /// The 64 bits of the band for a time: `(milliseconds mod 2^48) << 16 | CRC`.
    public static func payload(milliseconds: UInt64) -> UInt64 {
        let timestamp = milliseconds & timestampMask
        return timestamp << 16 | UInt64(crc16(timestamp: timestamp))
    }

    /// The timestamp in a 64-bit payload, or nil when its CRC does not match.
    public static func timestamp(payload: UInt64) -> UInt64? {
        let timestamp = payload >> 16
        return crc16(timestamp: timestamp) == UInt16(truncatingIfNeeded: payload) ? timestamp : nil
    }

    /// Draws the band for `milliseconds` into the top `bandHeight(frameHeight:)` rows of a
    /// yuv420p frame: luma cells, and neutral chroma under the band (rounded up to whole
    /// chroma rows). Nothing below the band is touched.
    public static func write(milliseconds: UInt64,
                             luma: UnsafeMutablePointer<UInt8>, lumaStride: Int,
                             chromaU: UnsafeMutablePointer<UInt8>, chromaV: UnsafeMutablePointer<UInt8>,
                             chromaStride: Int, width: Int, height: Int) {
        precondition(width >= minimumWidth && height >= minimumHeight, "frame too small for the barcode")
        precondition(width.isMultiple(of: 2) && height.isMultiple(of: 2), "yuv420p needs an even width and height")
        precondition(lumaStride >= width && chromaStride >= width / 2, "stride shorter than a row")
        let bits = payload(milliseconds: milliseconds)
        for row in 0..<rows {
            let top = row * height / rowDivisor
            let bottom = (row + 1) * height / rowDivisor
            // Paint the cell row's first line, then copy it down: one memcpy per line.
            let first = luma + top * lumaStride
            for column in 0..<columns {
                let bitIndex = row * columns + column
                let isOne = (bits >> UInt64(bitCount - 1 - bitIndex)) & 1 == 1
                let left = column * width / columns
                let right = (column + 1) * width / columns
                (first + left).update(repeating: isOne ? oneLuma : zeroLuma, count: right - left)
            }
            for y in (top + 1)..<bottom {
                (luma + y * lumaStride).update(from: first, count: width)
            }
        }
        let chromaRows = (bandHeight(frameHeight: height) + 1) / 2
        for y in 0..<chromaRows {
            (chromaU + y * chromaStride).update(repeating: neutralChroma, count: width / 2)
            (chromaV + y * chromaStride).update(repeating: neutralChroma, count: width / 2)
        }
    }

    /// Reads the band from a luma plane `width` x `height` (of any size: the frame may have
    /// been scaled since it was drawn). Returns the timestamp in milliseconds, or nil when
    /// the CRC does not match or the frame is smaller than 32 x 24.
    public static func read(luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> UInt64? {
        readPayload(luma: luma, stride: stride, width: width, height: height).flatMap(timestamp(payload:))
    }

    /// The raw 64 bits of the band, unchecked (nil only when the frame is too small): for
    /// diagnostics, e.g. to tell "no barcode" from "a damaged barcode".
    public static func readPayload(luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> UInt64? {
        guard width >= minimumWidth, height >= minimumHeight, stride >= width else { return nil }
        var bits: UInt64 = 0
        for row in 0..<rows {
            let (top, bottom) = innerHalf(of: row, count: rowDivisor, length: height)
            for column in 0..<columns {
                let (left, right) = innerHalf(of: column, count: columns, length: width)
                var sum = 0
                for y in top..<bottom {
                    let line = luma + y * stride
                    var lineSum: UInt32 = 0
                    for x in left..<right { lineSum &+= UInt32(line[x]) }
                    sum += Int(lineSum)
                }
                let pixels = (bottom - top) * (right - left)
                bits = bits << 1 | (sum >= threshold * pixels ? 1 : 0)
            }
        }
        return bits
    }

    /// The central half of cell `index` of `count` equal cells along `length` pixels:
    /// a quarter of the cell (rounded down) is dropped at each end.
    static func innerHalf(of index: Int, count: Int, length: Int) -> (start: Int, end: Int) {
        let start = index * length / count
        let end = (index + 1) * length / count
        let margin = (end - start) / 4
        return (start + margin, end - margin)
    }

    // MARK: - CRC-16/CCITT-FALSE

    /// CRC-16/CCITT-FALSE (also "CRC-16/IBM-3740"): polynomial 0x1021, initial value 0xFFFF,
    /// input and output not reflected, no final XOR. Check value: "123456789" -> 0x29B1.
    public static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes { crc = crc16Update(crc, byte) }
        return crc
    }

    /// The CRC of a 48-bit timestamp as 6 big-endian bytes, without building an array.
    static func crc16(timestamp: UInt64) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for shift in stride(from: 40, through: 0, by: -8) {
            crc = crc16Update(crc, UInt8(truncatingIfNeeded: timestamp >> UInt64(shift)))
        }
        return crc
    }

    @inline(__always)
    static func crc16Update(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var crc = crc ^ UInt16(byte) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1
        }
        return crc
    }
}
