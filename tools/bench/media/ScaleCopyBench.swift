import BenchSupport
import CLiveFFmpeg
import Glibc
import OnAirMedia

/// What `MediaInput` pays per picture when the file is already yuv420p at the encoder's size:
/// its VideoScaler still runs `sws_scale` yuv420p -> yuv420p, which libswscale turns into a
/// plane copy. Measured against copying the same rows with `memcpy` (the floor of any copy);
/// skipping the copy (x264 reading the decoder's planes) would save all of it.
///
/// Sources cycle through 8 decoder-like frames (`av_frame_get_buffer`) so the copy does not
/// run from a warm cache every time; CPU is the calling thread's clock.
struct ScaleCopyBench {
    let width: Int
    let height: Int
    let frames: Int
    let framesPerSecond: Int

    struct Result {
        let width: Int
        let height: Int
        let method: String
        let microsPerFrame: Percentiles
        let framesPerSecond: Int

        var percentOfCore: Double { microsPerFrame.mean * Double(framesPerSecond) / 1e4 }
    }

    func run() throws -> [Result] {
        let sources = try (0..<8).map { seed in try Self.decoderFrame(width: width, height: height, seed: seed) }
        defer { for source in sources { var frame: UnsafeMutablePointer<AVFrame>? = source; av_frame_free(&frame) } }
        let target = VideoFrameBuffer(width: width, height: height)
        guard let context = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_YUV420P, Int32(width), Int32(height),
                                           AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil) else {
            throw BenchError("sws_getContext failed")
        }
        defer { sws_freeContext(context) }
        let scaled = measure(sources) { source in Self.scale(context, source, into: target) }
        let copied = measure(sources) { source in Self.copyPlanes(source, into: target) }
        return [Result(width: width, height: height, method: "sws_scale yuv420p->yuv420p (MediaInput today)",
                       microsPerFrame: scaled, framesPerSecond: framesPerSecond),
                Result(width: width, height: height, method: "memcpy of the three planes",
                       microsPerFrame: copied, framesPerSecond: framesPerSecond)]
    }

    private func measure(_ sources: [UnsafeMutablePointer<AVFrame>],
                         _ body: (UnsafeMutablePointer<AVFrame>) -> Void) -> Percentiles {
        for index in 0..<16 { body(sources[index % sources.count]) }
        var samples: [Double] = []
        samples.reserveCapacity(frames)
        for index in 0..<frames {
            let before = BenchClock.threadCPU()
            body(sources[index % sources.count])
            samples.append(Double(BenchClock.threadCPU() - before) / 1_000)
        }
        return Percentiles(samples)
    }

    /// A yuv420p frame laid out as a decoder's (libavutil's default alignment), filled with
    /// a pattern so the pages are real.
    private static func decoderFrame(width: Int, height: Int, seed: Int) throws -> UnsafeMutablePointer<AVFrame> {
        guard let frame = av_frame_alloc() else { throw BenchError("av_frame_alloc failed") }
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw BenchError("av_frame_get_buffer failed") }
        withPlanes(frame) { planes, strides in
            for plane in 0..<3 {
                let rows = plane == 0 ? height : height / 2
                if let start = planes[plane] { memset(start, Int32(16 + seed * 20 + plane), Int(strides[plane]) * rows) }
            }
        }
        return frame
    }

    private static func withPlanes(_ frame: UnsafeMutablePointer<AVFrame>,
                                   _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int32>) -> Void) {
        withUnsafePointer(to: &frame.pointee.data) { data in
            withUnsafePointer(to: &frame.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { strides in body(planes, strides) }
                }
            }
        }
    }

    /// What VideoScaler.scale does per picture.
    private static func scale(_ context: OpaquePointer, _ source: UnsafeMutablePointer<AVFrame>,
                              into target: VideoFrameBuffer) {
        var planes: [UnsafeMutablePointer<UInt8>?] = [target.luma, target.chromaU, target.chromaV, nil]
        var strides: [Int32] = [Int32(target.lumaStride), Int32(target.chromaStride), Int32(target.chromaStride), 0]
        withPlanes(source) { sourcePlanes, sourceStrides in
            sourcePlanes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { readOnly in
                _ = sws_scale(context, readOnly, sourceStrides, 0, Int32(target.height), &planes, &strides)
            }
        }
    }

    private static func copyPlanes(_ source: UnsafeMutablePointer<AVFrame>, into target: VideoFrameBuffer) {
        withPlanes(source) { planes, strides in
            let destinations = [(target.luma, target.lumaStride, target.width, target.height),
                                (target.chromaU, target.chromaStride, target.width / 2, target.height / 2),
                                (target.chromaV, target.chromaStride, target.width / 2, target.height / 2)]
            for (plane, (destination, destinationStride, rowBytes, rows)) in destinations.enumerated() {
                guard let origin = planes[plane] else { continue }
                for row in 0..<rows {
                    memcpy(destination + row * destinationStride, origin + row * Int(strides[plane]), rowBytes)
                }
            }
        }
    }
}
