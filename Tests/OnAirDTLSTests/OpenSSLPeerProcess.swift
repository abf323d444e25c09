import Foundation

/// `openssl s_server` or `s_client` running in the background, its output captured in a file
/// that tests poll. Stdin stays open (an EOF would make the tool hang up).
///
/// Children of the test runner inherit a signal mask that blocks SIGTERM, so
/// `Process.terminate()` would leave them running (and `waitUntilExit` hang). The tool runs
/// under `timeout -s KILL`, which makes itself a process-group leader: `stop()` SIGKILLs the
/// group, and if the test runner dies first, the tool is still killed after 30 s.
final class OpenSSLPeerProcess {
    private let process = Process()
    private let stdin = Pipe()
    private let outputURL: URL

    init(arguments: [String], outputURL: URL) throws {
        self.outputURL = outputURL
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        // A safety net only (stop() kills it): longer than the handshake drive (60 s) plus the
        // wait a full suite's start imposes on every test (~25 s), or the peer is gone before
        // the test gets to talk to it.
        process.arguments = ["-s", "KILL", "120", OpenSSLCLI.path] + arguments
        process.standardInput = stdin
        let handle = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit { stop() }

    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// Polls the output until `text` appears or `seconds` pass.
    func waitFor(_ text: String, seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            if !process.isRunning { return output.contains(text) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.contains(text)
    }

    /// The hex after "Keying material: " (printed by `-keymatexport`).
    var keyingMaterial: [UInt8]? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Keying material: ") }),
              let hex = line.split(separator: " ").last else { return nil }
        var bytes: [UInt8] = []
        var digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        while !digits.isEmpty {
            guard let byte = UInt8(String(decoding: digits.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
            digits.removeFirst(2)
        }
        return bytes
    }

    func stop() {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }
}
