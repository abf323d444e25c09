import Foundation
import Glibc

/// The `chat` binary under test, as a child process on a free port with a fresh database,
/// and its CPU time (utime + stime from /proc/<pid>/stat) for the per-core figures.
final class ChatProcess {
    let process = Process()
    let port: Int
    let directory: URL

    /// `database`: a `postgres://` URL shared by several chat nodes, or nil for a fresh SQLite file.
    init(binary: String, port: Int, database: String? = nil) throws {
        self.port = port
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chat-bench-\(getpid())-\(port)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment
        environment["ONAIR_CHAT_PORT"] = String(port)
        environment["ONAIR_CHAT_DATABASE"] = database ?? directory.appendingPathComponent("bench.sqlite").path
        // The load generator sends far faster than a person: lift the per-connection limits.
        environment["ONAIR_CHAT_MESSAGES_PER_SECOND"] = "1000000"
        environment["ONAIR_CHAT_MESSAGE_BURST"] = "1000000"
        environment["ONAIR_CHAT_FRAMES_PER_SECOND"] = "1000000"
        environment["ONAIR_CHAT_FRAME_BURST"] = "1000000"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Waits until the port accepts TCP connections.
    func waitListening(timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else { throw BenchError("chat exited with \(process.terminationStatus) before listening") }
            if Self.canConnect(port: port) { return }
            usleep(50_000)
        }
        throw BenchError("chat did not listen on \(port) within \(timeout) s")
    }

    /// CPU seconds (user + system) the chat process has used so far.
    func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return .nan }
        // Fields after "(comm)": state is field 3, utime 14, stime 15 (proc(5)).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                _ = bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
