/// The three planes of one caller-owned yuv420p (I420) frame, with rectangle fills done as
/// one `memset`/`memcpy` per row: the renderer's only way to touch pixels, so that a
/// 1080p frame costs a few megabytes of row copies and no per-pixel calls.
///
/// Chroma is subsampled 2x2: a rectangle's chroma covers luma `[x/2, (x+w)/2)` etc., so
/// rectangles meant to carry colour start and end on even coordinates.
struct I420Canvas {
    let luma: UnsafeMutablePointer<UInt8>
    let lumaStride: Int
    let chromaU: UnsafeMutablePointer<UInt8>
    let chromaV: UnsafeMutablePointer<UInt8>
    let chromaStride: Int
    let width: Int
    let height: Int

    /// Fills luma `[x, x+w) x [y, y+h)`, clipped to the frame.
    @inline(__always)
    func fillLuma(x: Int, y: Int, width w: Int, height h: Int, value: UInt8) {
        let left = max(0, x), right = min(width, x + w)
        let top = max(0, y), bottom = min(height, y + h)
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            (luma + row * lumaStride + left).update(repeating: value, count: right - left)
        }
    }

    /// Fills luma and the chroma under it (luma coordinates, rounded to the chroma grid).
    func fill(x: Int, y: Int, width w: Int, height h: Int, color: YUVColor) {
        fillLuma(x: x, y: y, width: w, height: h, value: color.y)
        let left = max(0, x / 2), right = min(width / 2, (x + w + 1) / 2)
        let top = max(0, y / 2), bottom = min(height / 2, (y + h + 1) / 2)
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            (chromaU + row * chromaStride + left).update(repeating: color.u, count: right - left)
            (chromaV + row * chromaStride + left).update(repeating: color.v, count: right - left)
        }
    }

    /// Copies `width` bytes from `source` into every luma row of `[top, bottom)`.
    func copyLumaRows(_ top: Int, _ bottom: Int, from source: UnsafePointer<UInt8>) {
        let first = max(0, top), last = min(height, bottom)
        guard first < last else { return }
        for row in first..<last {
            (luma + row * lumaStride).update(from: source, count: width)
        }
    }

    /// Copies `width / 2` samples from `u` and `v` into every chroma row of `[top, bottom)`
    /// (chroma rows).
    func copyChromaRows(_ top: Int, _ bottom: Int, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        let first = max(0, top), last = min(height / 2, bottom)
        guard first < last else { return }
        for row in first..<last {
            (chromaU + row * chromaStride).update(from: u, count: width / 2)
            (chromaV + row * chromaStride).update(from: v, count: width / 2)
        }
    }
}
