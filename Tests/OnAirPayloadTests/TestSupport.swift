import Foundation
import OnAirPayload
import OnAirWire
import OnAirTestSupport

/// Bytes from hex text (spaces and newlines allowed); an empty array on a typo, which
/// the tests' expectations then catch.
func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }


/// Deterministic filler bytes behind a given NAL unit header byte.
func nalUnit(header: UInt8, count: Int, seed: UInt64 = 1) -> [UInt8] {
    var rng = SplitMix64(seed: seed &+ UInt64(count) &* 31 &+ UInt64(header))
    var bytes = [header]
    bytes.reserveCapacity(count)
    while bytes.count < count { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
    return Array(bytes.prefix(count))
}

struct ToolFailure: Error, CustomStringConvertible, Sendable {
    let description: String
}

/// Runs ffmpeg and ffprobe (tests only: the module itself never touches processes).
enum MediaTools {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("onair-payload-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Encoded media can be megabytes: remove it when the test process ends.
        atexit { try? FileManager.default.removeItem(at: MediaTools.directory) }
        return url
    }()

    /// Runs `/usr/bin/<tool>`; stdout and stderr go through files so large outputs cannot
    /// fill a pipe and stall the child.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws -> (stdout: String, stderr: String) {
        let id = UUID().uuidString
        let outURL = directory.appendingPathComponent("\(id).out")
        let errURL = directory.appendingPathComponent("\(id).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        if process.terminationStatus != 0 && !allowFailure {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(stderr.suffix(2000))")
        }
        return (stdout, stderr)
    }

    /// Encodes `testsrc` with libx264 to a raw Annex B file and returns its path.
    static func x264(size: String, frames: Int, pixelFormat: String = "yuv420p", profile: String? = nil,
                     preset: String = "ultrafast", x264Params: String? = nil, extra: [String] = [],
                     bitstreamFilter: String = "h264_mp4toannexb") throws -> URL {
        let url = directory.appendingPathComponent("\(UUID().uuidString).h264")
        var arguments = ["-hide_banner", "-loglevel", "error", "-y",
                         "-f", "lavfi", "-i", "testsrc=size=\(size):rate=30",
                         "-frames:v", "\(frames)", "-pix_fmt", pixelFormat, "-c:v", "libx264", "-preset", preset]
        if let profile { arguments += ["-profile:v", profile] }
        if let x264Params { arguments += ["-x264-params", x264Params] }
        arguments += extra
        arguments += ["-bsf:v", bitstreamFilter, "-f", "h264", url.path]
        try run("ffmpeg", arguments)
        return url
    }

    static func bytes(of url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    /// `key=value` lines of `ffprobe -show_entries ... -of default=nw=1` for the first stream.
    static func probeStream(_ url: URL, entries: String) throws -> [String: String] {
        let output = try run("ffprobe", ["-v", "error", "-select_streams", "0", "-show_entries", "stream=\(entries)",
                                         "-of", "default=nw=1", url.path]).stdout
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    /// The syntax elements of every SPS in `url`, as printed by FFmpeg's `trace_headers`
    /// bitstream filter (an independent H.264 parser): one dictionary per SPS, element
    /// name → value. Repeated names (scaling list deltas, cycle offsets) keep the last.
    static func traceSPS(_ url: URL) throws -> [[String: Int]] {
        let stderr = try run("ffmpeg", ["-hide_banner", "-i", url.path, "-c", "copy", "-bsf:v", "trace_headers",
                                        "-f", "null", "-"], allowFailure: true).stderr
        var sets: [[String: Int]] = []
        var current: [String: Int]? = nil
        for line in stderr.split(separator: "\n") {
            guard let bracket = line.range(of: "] ") else { continue }
            let body = line[bracket.upperBound...]
            if body.hasPrefix("Sequence Parameter Set") {
                if let current { sets.append(current) }
                current = [:]
                continue
            }
            if !body.hasPrefix(" ") && !(body.first?.isNumber ?? false) {
                if let finished = current { sets.append(finished) }
                current = nil
                continue
            }
            guard current != nil else { continue }
            // "<bit position>  <name>  <bits> = <value>"
            let words = body.split(separator: " ")
            guard words.count >= 5, words[words.count - 2] == "=", let value = Int(words[words.count - 1]) else { continue }
            current![String(words[1])] = value
        }
        if let current { sets.append(current) }
        return sets
    }
}
