import OnAirMedia
import OnAirTestPattern

/// The built-in source: every picture carries its frame number and, as a barcode, the wall-clock
/// millisecond it was drawn; the sound beeps on every wall-clock second. A viewer that reads
/// the barcode (or hears the beep) against its own clock measures glass-to-glass latency.
final class TestPatternSource: BroadcastSource {
    let width: Int
    let height: Int
    let framesPerSecond: Int
    private var renderer: TestPatternRenderer
    private let frame: VideoFrameBuffer
    private let tone = TestPatternTone()

    init(width: Int, height: Int, framesPerSecond: Int) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        renderer = TestPatternRenderer(width: width, height: height)
        frame = VideoFrameBuffer(width: width, height: height)
    }

    var isFinished: Bool { false }
    var summary: String { "test pattern \(width)x\(height)@\(framesPerSecond) with a 1 kHz beep each second" }

    func picture(forTick tick: Int64, timestamp90kHz: Int64, wallClockMilliseconds: UInt64) -> VideoFrameBuffer? {
        renderer.render(frameIndex: Int(tick), wallClockMilliseconds: wallClockMilliseconds,
                        luma: frame.luma, lumaStride: frame.lumaStride, chromaU: frame.chromaU, chromaV: frame.chromaV,
                        chromaStride: frame.chromaStride)
        return frame
    }

    func audio(into samples: UnsafeMutablePointer<Int16>, index: Int64, wallClockSampleTime: Int64) {
        tone.fill(samples, frames: OpusAudioEncoder.frameSamples, firstSampleTime: wallClockSampleTime)
    }
}
