import BenchSupport
import OnAirMedia

/// x264 encode per picture through ``H264Encoder`` with `broadcast`'s settings (preset +
/// tune zerolatency, Constrained Baseline, ABR with VBV maxrate = bitrate and 1 s buffer,
/// keyint = gop, threads auto = sliced threads).
///
/// The `encode` call is the dominant part of capture-to-first-packet: under zerolatency the
/// picture's NAL units come out of the same call, and packetizing + SRTP + `sendmmsg` follow.
/// Paced (the default) calls `encode` once per frame interval like the live loop, so the
/// slice threads sleep and wake as they do in `broadcast`; unpaced measures throughput.
struct VideoEncodeBench {
    var settings: H264EncoderSettings
    let frames: Int
    let paced: Bool
    let warmupFrames = 30

    struct Result {
        let label: String
        let settings: H264EncoderSettings
        let frames: Int
        let keyframes: Int
        /// Per `encode` call, milliseconds.
        let wall: Percentiles
        let cpu: Percentiles
        /// Producing the picture (drawing the pattern), thread CPU ms; empty for files.
        let produce: Percentiles
        let kilobitsPerSecond: Double
        let encoderThreads: Int

        /// Share of one core at the stream's frame rate.
        var percentOfCore: Double { cpu.mean * Double(settings.framesPerSecond) / 10 }
    }

    func run(_ source: inout some BenchFrames) throws -> Result {
        let threadsBefore = BenchClock.threadCount()
        let encoder = try H264Encoder(settings)
        let encoderThreads = BenchClock.threadCount() - threadsBefore
        var wall: [Double] = [], cpu: [Double] = [], produce: [Double] = []
        wall.reserveCapacity(frames)
        cpu.reserveCapacity(frames)
        var bytes = 0
        var keyframes = 0
        let interval = UInt64(1_000_000_000 / settings.framesPerSecond)
        var due = BenchClock.monotonic()
        for index in 0..<(warmupFrames + frames) {
            if paced {
                BenchClock.sleep(until: due)
                due += interval
            }
            let (picture, produceCPU) = source.picture(index)
            picture.timestamp90kHz = Int64(index) * 90_000 / Int64(settings.framesPerSecond)
            let cpuBefore = BenchClock.processCPU(), wallBefore = BenchClock.monotonic()
            let encoded = try encoder.encode(picture, forceKeyframe: false)
            let wallSpent = BenchClock.monotonic() - wallBefore, cpuSpent = BenchClock.processCPU() - cpuBefore
            guard index >= warmupFrames else { continue }
            wall.append(Double(wallSpent) / 1e6)
            cpu.append(Double(cpuSpent) / 1e6)
            if produceCPU > 0 { produce.append(Double(produceCPU) / 1e6) }
            bytes += encoded?.byteCount ?? 0
            if encoded?.isKeyframe == true { keyframes += 1 }
        }
        let seconds = Double(frames) / Double(settings.framesPerSecond)
        return Result(label: source.label, settings: settings, frames: frames, keyframes: keyframes,
                      wall: Percentiles(wall), cpu: Percentiles(cpu), produce: Percentiles(produce),
                      kilobitsPerSecond: Double(bytes) * 8 / seconds / 1_000, encoderThreads: encoderThreads)
    }
}
