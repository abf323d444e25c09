import Foundation
import OnAirMedia
import Testing

@testable import OnAirBroadcast

/// A real file (made with the ffmpeg CLI) through MediaInput and DecodedSource: the output clock
/// decides, frames are dropped or repeated to match it, loops continue the timeline.
@Suite("DecodedSource pacing (files on the output clock)")
struct DecodedSourcePacingTests {
    static func makeFile(fps: Int, seconds: Int, audio: Bool) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("onair-\(UUID().uuidString).mp4").path
        var arguments = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(fps)"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"] }
        arguments += ["-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
        if audio { arguments += ["-c:a", "aac"] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = arguments + [path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return path
    }

    @Test("a 25 fps file on a 30 fps clock: every source frame shown once, some repeated, then finished")
    func rateConversion() throws {
        let path = try Self.makeFile(fps: 25, seconds: 2, audio: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = try MediaInput(.file(path), wantAudio: false)
        let source = DecodedSource(input: input, width: 320, height: 240, framesPerSecond: 30, loops: false, summary: "")
        var shown: [Int64] = []
        var tick: Int64 = 0
        while !source.isFinished && tick < 200 {
            if let picture = try source.picture(forTick: tick, timestamp90kHz: tick * 3000, wallClockMilliseconds: 0) {
                shown.append(picture.timestamp90kHz)
            }
            tick += 1
        }
        #expect(source.isFinished)
        #expect((59...62).contains(tick), "2 s at 30 fps, got \(tick) ticks")
        let distinct = Set(shown)
        #expect(distinct.count == 50, "every one of the 50 source frames shown")
        #expect(shown == shown.sorted(), "never backwards")
        #expect(shown.count - distinct.count >= 9, "~10 repeats to fill 60 ticks")
    }

    @Test("--loop: the second pass continues the timestamps; audio keeps flowing")
    func loopContinues() throws {
        let path = try Self.makeFile(fps: 10, seconds: 1, audio: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = try MediaInput(.file(path), wantAudio: true)
        #expect(input.hasAudio)
        let source = DecodedSource(input: input, width: 320, height: 240, framesPerSecond: 10, loops: true, summary: "")
        var timestamps: [Int64] = []
        for tick in Int64(0)..<35 {
            if let picture = try source.picture(forTick: tick, timestamp90kHz: tick * 9000, wallClockMilliseconds: 0) {
                timestamps.append(picture.timestamp90kHz)
            }
        }
        #expect(!source.isFinished)
        #expect(Set(timestamps).count >= 33, "three passes of 10 frames and more, all distinct")
        #expect(timestamps == timestamps.sorted())
        let samples = UnsafeMutablePointer<Int16>.allocate(capacity: 1920)
        defer { samples.deallocate() }
        var loud = 0
        for index in Int64(0)..<100 {
            try source.audio(into: samples, index: index, wallClockSampleTime: 0)
            if (0..<1920).contains(where: { abs(Int(samples[$0])) > 1000 }) { loud += 1 }
        }
        #expect(loud >= 90, "the tone plays across loops (\(loud) of 100 frames)")
    }

    @Test("a missing file and a text file are refused with messages that name them")
    func badInputs() throws {
        let missing = "/nonexistent/clip.mp4"
        let error = #expect(throws: MediaInputError.self) { try MediaInput(.file(missing)) }
        #expect(error?.description.contains(missing) == true)
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("onair-\(UUID().uuidString).txt").path
        try String(repeating: "not a video\n", count: 100).write(toFile: text, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: text) }
        let textError = #expect(throws: MediaInputError.self) { try MediaInput(.file(text)) }
        #expect(textError?.description.contains("text file") == true)
    }
}
