import BenchSupport
import Foundation
import Glibc

/// A relay under test that this program started (pinned with `taskset`) or attached to.
final class RelayProcess {
    let name: String
    let baseURL: String
    /// The process to measure; nil when attached without `--relay-pid`.
    let pid: Int32?
    private let process: Process?

    /// Attaches to a relay someone else runs.
    init(name: String, attachingTo baseURL: String, pid: Int32?) {
        self.name = name
        self.baseURL = baseURL
        self.pid = pid
        self.process = nil
    }

    /// Starts `executable arguments` under `taskset -c core` (taskset execs it, so the pid is
    /// the relay's), output to `logPath`, and waits until its HTTP port accepts connections.
    init(name: String, executable: String, arguments: [String], environment: [String: String], core: Int,
         httpPort: UInt16, logPath: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("\(name): \(executable) is not an executable (build it first)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-c", "\(core)", executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.name = name
        self.process = process
        self.pid = process.processIdentifier
        self.baseURL = "http://127.0.0.1:\(httpPort)"
        let client = HTTPClient(host: "127.0.0.1", port: httpPort)
        let deadline = BenchClock.monotonic() + 60_000_000_000
        while !client.isListening() {
            guard process.isRunning else { throw BenchError("\(name) exited at start; see \(logPath)") }
            guard BenchClock.monotonic() < deadline else {
                stop()
                throw BenchError("\(name) did not listen on port \(httpPort) within 60 s; see \(logPath)")
            }
            usleep(50_000)
        }
    }

    /// SIGTERM, then SIGKILL after 5 s, to the process we started (never to an attached one).
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        let deadline = BenchClock.monotonic() + 5_000_000_000
        while process.isRunning && BenchClock.monotonic() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
