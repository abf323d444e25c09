import ArgumentParser
import Foundation
import OnAirMedia

struct MediaBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-bench",
        abstract: "Opus and x264 encode cost per frame with broadcast's settings; the same-size scale copy.")

    @Option(help: "Parts to run: opus, video, scale (comma-separated).")
    var only = "opus,video,scale"

    @Option(help: "Opus frames (20 ms each) timed per signal.")
    var opusFrames = 5_000

    @Option(help: "Opus bitrate in bit/s.")
    var audioBitrate = 64_000

    @Option(help: "Opus signals: tone, sine, noise.")
    var signals = "tone,sine,noise"

    @Option(help: "Test pattern sizes WxH (comma-separated).")
    var sizes = "1280x720"

    @Option(help: "x264 bitrate in bit/s.")
    var videoBitrate = 2_500_000

    @Option(help: "x264 preset.")
    var preset = "veryfast"

    @Option(help: "Frames between IDRs.")
    var gop = 60

    @Option(help: "Frame rate (pacing and rate control).")
    var fps = 30

    @Option(help: "Pictures timed per video case.")
    var frames = 600

    @Option(help: "x264 threads (0: auto, as broadcast).")
    var threads = 0

    @Flag(help: "Encode back to back instead of once per frame interval.")
    var unpaced = false

    @Option(help: "Also encode this file's first --gop pictures (cycled) and time their decode + scale.")
    var input: String?

    @Option(help: "Pictures timed in the scale-copy part.")
    var scaleFrames = 2_000

    func validate() throws {
        for part in parts where !["opus", "video", "scale"].contains(part) {
            throw ValidationError("--only takes opus, video, scale (got '\(part)')")
        }
        _ = try parsedSizes()
        _ = try parsedSignals()
        guard opusFrames > 0, frames > 0, scaleFrames > 0, fps > 0, gop > 0 else {
            throw ValidationError("counts and rates must be positive")
        }
    }

    private var parts: [String] { only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

    private func parsedSizes() throws -> [(width: Int, height: Int)] {
        try sizes.split(separator: ",").map { text in
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] % 2 == 0, parts[1] % 2 == 0, parts[0] >= 160, parts[1] >= 120 else {
                throw ValidationError("--sizes takes even WxH like 1280x720 (got '\(text)')")
            }
            return (parts[0], parts[1])
        }
    }

    private func parsedSignals() throws -> [OpusSignal] {
        try signals.split(separator: ",").map { name in
            guard let signal = OpusSignal(rawValue: String(name)) else {
                throw ValidationError("--signals takes tone, sine, noise (got '\(name)')")
            }
            return signal
        }
    }

    func run() throws {
        var load = [0.0, 0, 0]
        getloadavg(&load, 3)
        print("media-bench: \(ProcessInfo.processInfo.activeProcessorCount) CPUs, loadavg \(fixed(load[0], 2)) "
              + "\(fixed(load[1], 2)) \(fixed(load[2], 2)) at start")
        if parts.contains("opus") { try runOpus() }
        if parts.contains("video") { try runVideo() }
        if parts.contains("scale") { try runScale() }
        getloadavg(&load, 3)
        print("\nloadavg at end: \(fixed(load[0], 2)) \(fixed(load[1], 2)) \(fixed(load[2], 2))")
    }

    private func runOpus() throws {
        let bench = OpusEncodeBench(bitrate: audioBitrate, frames: opusFrames)
        var table = FigureTable(["signal", "frames", "CPU µs/frame", "p50 µs", "p99 µs", "wall µs/frame",
                                 "% core at 50 fps", "target <= 1.5 %", "kbit/s out"])
        for signal in try parsedSignals() {
            let result = try bench.run(signal)
            table.add([signal.label, "\(result.frames)", fixed(result.cpuMicrosPerFrame), fixed(result.frameCPU.at(50)),
                       fixed(result.frameCPU.at(99)), fixed(result.wallMicrosPerFrame), fixed(result.percentOfCore, 2),
                       result.percentOfCore <= 1.5 ? "met" : "MISSED", fixed(result.kilobitsPerSecond)])
        }
        print("\n(a) Opus encode, 48 kHz stereo 20 ms frames, \(audioBitrate / 1000) kbit/s, FEC on, one thread "
              + "(CLOCK_THREAD_CPUTIME_ID), back to back after 100 warm-up frames\n")
        print(table.text)
    }

    private func runVideo() throws {
        var table = FigureTable(["source", "size", "kbit/s target / out", "frames", "IDR", "x264 threads",
                                 "encode wall ms p50", "p99", "max", "CPU ms/frame", "CPU p99",
                                 "% core at \(fps) fps", "picture ms p50"])
        func add(_ result: VideoEncodeBench.Result) {
            let s = result.settings
            table.add([result.label, "\(s.width)x\(s.height)", "\(s.bitrate / 1000) / \(fixed(result.kilobitsPerSecond, 0))",
                       "\(result.frames)", "\(result.keyframes)", "\(result.encoderThreads)",
                       fixed(result.wall.at(50), 2), fixed(result.wall.at(99), 2), fixed(result.wall.max, 2),
                       fixed(result.cpu.mean, 2), fixed(result.cpu.at(99), 2), fixed(result.percentOfCore),
                       result.produce.sorted.isEmpty ? "-" : fixed(result.produce.at(50), 2)])
        }
        for size in try parsedSizes() {
            var source = TestPatternFrames(width: size.width, height: size.height)
            add(try bench(width: size.width, height: size.height).run(&source))
        }
        var decode: FileFrames?
        if let input {
            var source = try FileFrames(path: input, count: gop)
            add(try bench(width: source.width, height: source.height).run(&source))
            decode = source
        }
        print("\n(b) x264 encode per picture: \(preset) + zerolatency, Constrained Baseline, ABR with VBV = bitrate "
              + "x 1 s, keyint \(gop), threads \(threads == 0 ? "auto" : "\(threads)"), "
              + (unpaced ? "back to back" : "paced at \(fps) fps") + "; CPU = process clock around the call "
              + "(includes x264's slice threads); picture = drawing the test pattern (thread CPU)\n")
        print(table.text)
        if let decode {
            var files = FigureTable(["file", "size", "pictures", "decoder threads", "decode+scale CPU ms mean", "p50",
                                     "p99", "wall ms p50", "wall p99", "% core at \(fps) fps"])
            files.add([decode.label, "\(decode.width)x\(decode.height)", "\(decode.decodeCPU.sorted.count)",
                       "\(decode.decoderThreads)", fixed(decode.decodeCPU.mean, 2), fixed(decode.decodeCPU.at(50), 2),
                       fixed(decode.decodeCPU.at(99), 2), fixed(decode.decodeWall.at(50), 2),
                       fixed(decode.decodeWall.at(99), 2), fixed(decode.decodeCPU.mean * Double(fps) / 10)])
            print("\nMediaInput.next per picture (video only; process CPU, frame-threaded decoder, swscale to I420)\n")
            print(files.text)
        }
    }

    private func bench(width: Int, height: Int) -> VideoEncodeBench {
        var settings = H264EncoderSettings(width: width, height: height, framesPerSecond: fps, bitrate: videoBitrate,
                                           gop: gop, preset: preset, threads: threads)
        settings.levelIDC = settings.minimumLevelIDC  // as MediaSetup does
        return VideoEncodeBench(settings: settings, frames: frames, paced: !unpaced)
    }

    private func runScale() throws {
        var table = FigureTable(["size", "method", "µs/frame mean", "p50", "p99", "% core at \(fps) fps"])
        for size in try parsedSizes() + [(1920, 1080)] where size.width <= 1920 {
            let bench = ScaleCopyBench(width: size.width, height: size.height, frames: scaleFrames, framesPerSecond: fps)
            for result in try bench.run() {
                table.add(["\(result.width)x\(result.height)", result.method, fixed(result.microsPerFrame.mean),
                           fixed(result.microsPerFrame.at(50)), fixed(result.microsPerFrame.at(99)),
                           fixed(result.percentOfCore, 2)])
            }
        }
        print("\n(c) a file already yuv420p at the encoder's size: the per-picture copy (thread CPU, 8 source frames cycled)\n")
        print(table.text)
    }
}
