@testable import OnAirTestPattern
import OnAirTestSupport


/// A yuv420p frame in arrays, with strides that may exceed the row width (the padding
/// holds `fill` too, so tests can check that nothing is written past a row).
struct TestFrame {
    let width: Int
    let height: Int
    let lumaStride: Int
    let chromaStride: Int
    var luma: [UInt8]
    var u: [UInt8]
    var v: [UInt8]

    init(width: Int, height: Int, lumaPadding: Int = 0, chromaPadding: Int = 0, fill: UInt8 = 0x5A) {
        self.width = width
        self.height = height
        lumaStride = width + lumaPadding
        chromaStride = width / 2 + chromaPadding
        luma = Array(repeating: fill, count: lumaStride * height)
        u = Array(repeating: fill, count: chromaStride * height / 2)
        v = Array(repeating: fill, count: chromaStride * height / 2)
    }

    mutating func writeBarcode(milliseconds: UInt64) {
        let (width, height, lumaStride, chromaStride) = (self.width, self.height, self.lumaStride, self.chromaStride)
        luma.withUnsafeMutableBufferPointer { y in
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in
                    TestPatternBarcode.write(milliseconds: milliseconds, luma: y.baseAddress!, lumaStride: lumaStride,
                                             chromaU: u.baseAddress!, chromaV: v.baseAddress!, chromaStride: chromaStride,
                                             width: width, height: height)
                }
            }
        }
    }

    mutating func render(_ renderer: inout TestPatternRenderer, frameIndex: Int, milliseconds: UInt64) {
        let (lumaStride, chromaStride) = (self.lumaStride, self.chromaStride)
        luma.withUnsafeMutableBufferPointer { y in
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in
                    renderer.render(frameIndex: frameIndex, wallClockMilliseconds: milliseconds,
                                    luma: y.baseAddress!, lumaStride: lumaStride,
                                    chromaU: u.baseAddress!, chromaV: v.baseAddress!, chromaStride: chromaStride)
                }
            }
        }
    }

    func readBarcode() -> UInt64? {
        luma.withUnsafeBufferPointer {
            TestPatternBarcode.read(luma: $0.baseAddress!, stride: lumaStride, width: width, height: height)
        }
    }

    func lumaAt(x: Int, y: Int) -> UInt8 { luma[y * lumaStride + x] }
    func uAt(x: Int, y: Int) -> UInt8 { u[y * chromaStride + x] }
    func vAt(x: Int, y: Int) -> UInt8 { v[y * chromaStride + x] }

    /// The visible luma rows, without stride padding.
    var visibleLuma: [UInt8] {
        (0..<height).flatMap { luma[$0 * lumaStride ..< $0 * lumaStride + width] }
    }
}

/// Reads a barcode from a bare luma plane (`width` bytes per row).
func readBarcode(_ plane: [UInt8], width: Int, height: Int) -> UInt64? {
    plane.withUnsafeBufferPointer {
        TestPatternBarcode.read(luma: $0.baseAddress!, stride: width, width: width, height: height)
    }
}

/// Each output pixel the mean of a 2x2 block (rounded), as a scaler's box filter does.
func downscale2x(_ plane: [UInt8], width: Int, height: Int, stride: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(width / 2 * height / 2)
    for y in 0..<height / 2 {
        for x in 0..<width / 2 {
            let a = Int(plane[2 * y * stride + 2 * x]), b = Int(plane[2 * y * stride + 2 * x + 1])
            let c = Int(plane[(2 * y + 1) * stride + 2 * x]), d = Int(plane[(2 * y + 1) * stride + 2 * x + 1])
            out.append(UInt8((a + b + c + d + 2) / 4))
        }
    }
    return out
}

/// Adds uniform noise in `-amplitude...amplitude` to every sample, clamped to 0...255.
func addNoise(_ plane: inout [UInt8], amplitude: Int, using rng: inout SplitMix64) {
    let span = UInt64(2 * amplitude + 1)
    plane.withUnsafeMutableBufferPointer { samples in
        for index in samples.indices {
            let noise = Int(rng.next() % span) - amplitude
            samples[index] = UInt8(clamping: Int(samples[index]) + noise)
        }
    }
}
