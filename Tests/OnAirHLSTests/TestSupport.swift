import Foundation
import OnAirWire

/// Bytes from hex text written in tests (spaces and newlines allowed).
func hex(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(text) else { fatalError("bad hex in test: \(text)") }
    return bytes
}

/// A fresh directory under the system temporary directory.
func makeTemporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("onair-hls-\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// What a finished child process printed.
struct ProcessOutput {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program found on PATH (ffmpeg, ffprobe) and waits for it.
func run(_ program: String, _ arguments: [String]) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
    let errorData = DispatchQueue(label: "stderr-drain")
    nonisolated(unsafe) var stderrBytes = Data()
    let group = DispatchGroup()
    group.enter()
    errorData.async {
        stderrBytes = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let stdoutBytes = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessOutput(status: process.terminationStatus,
                         stdout: String(decoding: stdoutBytes, as: UTF8.self),
                         stderr: String(decoding: stderrBytes, as: UTF8.self))
}

/// Writes bytes to a file.
func write<C: Collection>(_ bytes: C, to url: URL) throws where C.Element == UInt8 {
    try Data(bytes).write(to: url)
}
