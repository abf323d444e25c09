import BenchSupport
import OnAirMedia

/// Opus encode cost per 20 ms frame through ``OpusAudioEncoder`` (the broadcaster's settings:
/// 48 kHz stereo, FEC on, 5 % expected loss, music signal, libopus's default complexity).
///
/// The frames are encoded back to back on one thread; CPU is that thread's clock
/// (CLOCK_THREAD_CPUTIME_ID) over the whole run, so "% of a core" is the mean CPU per frame
/// times the 50 frames a second a live stream encodes. The target is <= 1.5 %.
struct OpusEncodeBench {
    let bitrate: Int
    let frames: Int
    /// Frames encoded before timing starts (the encoder's analysis state settles).
    let warmupFrames = 100
    /// Distinct frames generated ahead and cycled through: 10 s.
    let distinctFrames = 500

    struct Result {
        let signal: OpusSignal
        let frames: Int
        let cpuMicrosPerFrame: Double
        let wallMicrosPerFrame: Double
        let frameCPU: Percentiles
        let kilobitsPerSecond: Double

        /// Share of one core at the live rate of 50 frames/s.
        var percentOfCore: Double { cpuMicrosPerFrame * 50 / 1e6 * 100 }
    }

    func run(_ signal: OpusSignal) throws -> Result {
        let encoder = try OpusAudioEncoder(bitrate: bitrate)
        let samples = signal.samples(frames: distinctFrames)
        let frameLength = OpusAudioEncoder.frameSamples * 2
        var perFrame: [Double] = []
        perFrame.reserveCapacity(frames)
        var bytes = 0
        let (cpu, wall) = try samples.withUnsafeBufferPointer { buffer throws -> (UInt64, UInt64) in
            let base = buffer.baseAddress!
            for index in 0..<warmupFrames {
                _ = try encoder.encode(base + (index % distinctFrames) * frameLength)
            }
            let cpuStart = BenchClock.threadCPU()
            let wallStart = BenchClock.monotonic()
            for index in 0..<frames {
                let before = BenchClock.threadCPU()
                let packet = try encoder.encode(base + ((warmupFrames + index) % distinctFrames) * frameLength)
                perFrame.append(Double(BenchClock.threadCPU() - before) / 1_000)
                bytes += packet.count
            }
            return (BenchClock.threadCPU() - cpuStart, BenchClock.monotonic() - wallStart)
        }
        return Result(signal: signal, frames: frames, cpuMicrosPerFrame: Double(cpu) / 1_000 / Double(frames),
                      wallMicrosPerFrame: Double(wall) / 1_000 / Double(frames), frameCPU: Percentiles(perFrame),
                      kilobitsPerSecond: Double(bytes) * 8 / (Double(frames) * 0.020) / 1_000)
    }
}
