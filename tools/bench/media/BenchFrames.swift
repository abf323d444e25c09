import BenchSupport
import Glibc
import OnAirMedia
import OnAirTestPattern

/// The pictures the x264 benchmark encodes.
///
/// - The test pattern is drawn into one buffer per frame, as `broadcast`'s TestPatternSource
///   does (the drawing is timed too: it precedes capture in the real pipeline).
/// - A file is decoded ahead into a ring of pictures (decode + swscale timed per picture),
///   then cycled: a frame-threaded decoder running during `encode` would otherwise be
///   charged to the encoder's process CPU.
protocol BenchFrames {
    var width: Int { get }
    var height: Int { get }
    var label: String { get }
    /// The picture for frame `index`, and the CPU ns it took to produce it (0 when ready).
    mutating func picture(_ index: Int) -> (picture: VideoFrameBuffer, cpuNanoseconds: UInt64)
}

struct TestPatternFrames: BenchFrames {
    let width: Int
    let height: Int
    private var renderer: TestPatternRenderer
    private let frame: VideoFrameBuffer

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        renderer = TestPatternRenderer(width: width, height: height)
        frame = VideoFrameBuffer(width: width, height: height)
    }

    var label: String { "test pattern" }

    mutating func picture(_ index: Int) -> (picture: VideoFrameBuffer, cpuNanoseconds: UInt64) {
        let before = BenchClock.threadCPU()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = UInt64(now.tv_sec) * 1_000 + UInt64(now.tv_nsec) / 1_000_000
        renderer.render(frameIndex: index, wallClockMilliseconds: milliseconds, luma: frame.luma,
                        lumaStride: frame.lumaStride, chromaU: frame.chromaU, chromaV: frame.chromaV,
                        chromaStride: frame.chromaStride)
        return (frame, BenchClock.threadCPU() - before)
    }
}

struct FileFrames: BenchFrames {
    let width: Int
    let height: Int
    let label: String
    private let ring: [VideoFrameBuffer]
    /// Per decoded picture: process CPU ms and wall ms of `MediaInput.next` (decode + scale).
    let decodeCPU: Percentiles
    let decodeWall: Percentiles
    /// Worker threads libavcodec started for the decoder.
    let decoderThreads: Int

    /// Decodes the first `count` pictures of `path` at its own size (video only).
    init(path: String, count: Int) throws {
        let threadsBefore = BenchClock.threadCount()
        let input = try MediaInput(.file(path), wantAudio: false)
        guard let size = input.videoSize else { throw BenchError("\(path): no video") }
        width = size.width & ~1
        height = size.height & ~1
        label = (path.split(separator: "/").last.map(String.init) ?? path)
        var fifo = PCMFifo(capacityFrames: 48_000)
        var ring: [VideoFrameBuffer] = []
        var cpu: [Double] = [], wall: [Double] = []
        var threads = 0
        while ring.count < count {
            let buffer = VideoFrameBuffer(width: width, height: height)
            let cpuBefore = BenchClock.processCPU(), wallBefore = BenchClock.monotonic()
            let event = try input.next(video: buffer, audio: &fifo)
            let cpuSpent = BenchClock.processCPU() - cpuBefore, wallSpent = BenchClock.monotonic() - wallBefore
            switch event {
            case .video:
                ring.append(buffer)
                cpu.append(Double(cpuSpent) / 1e6)
                wall.append(Double(wallSpent) / 1e6)
                threads = max(threads, BenchClock.threadCount() - threadsBefore)
            case .audio, .notReady:
                continue
            case .endOfInput:
                guard !ring.isEmpty else { throw BenchError("\(path): no pictures") }
                try input.rewind()
            }
        }
        self.ring = ring
        // The first pictures carry the decoder's start-up (thread pool, first frame delay).
        decodeCPU = Percentiles(Array(cpu.dropFirst(min(cpu.count - 1, 8))))
        decodeWall = Percentiles(Array(wall.dropFirst(min(wall.count - 1, 8))))
        decoderThreads = threads
    }

    mutating func picture(_ index: Int) -> (picture: VideoFrameBuffer, cpuNanoseconds: UInt64) {
        (ring[index % ring.count], 0)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
