import Foundation

/// A real PostgreSQL server for tests, started once per test process through
/// `tools/pg/throwaway.sh` (initdb into a temporary directory, a free 127.0.0.1 port) and
/// removed by the script's watchdog when the process ends. Each test takes a database of its
/// own with ``database()``.
public final class ThrowawayPostgres: Sendable {
    public let directory: String
    /// `postgres://onair:onair@127.0.0.1:PORT/onair`
    public let url: String

    /// The server of this process, started on first use.
    /// The deadline for each database operation in tests that are not about deadlines (the
    /// production default is 5 s). The whole suite runs in parallel, and tests that wait for a
    /// child process synchronously (ffmpeg fixtures, openssl, initdb) hold the cooperative
    /// pool's threads, two on a 2-core machine, for tens of seconds at the start of a run:
    /// an operation's deadline, a sleeping task raced against the operation, then fires before
    /// the finished operation's task gets a thread (measured: every test of a run "passed
    /// after" 26 s; 3 of 5 full runs had chat and webhook stores time out at 5 s).
    public static let operationDeadline: Duration = .seconds(60)

    public static func shared() throws -> ThrowawayPostgres {
        try lock.withLock {
            if let server = started { return server }
            let server = try ThrowawayPostgres()
            started = server
            return server
        }
    }

    /// A fresh empty database on the shared server: its URL. (The server's start and the
    /// script run off the cooperative pool: ``OffPool``.)
    public static func database() async throws -> String {
        try await OffPool.run { try shared().createDatabase() }
    }

    /// A server of its own (for tests that stop it), removed by ``stop()`` or at process end.
    public static func start() async throws -> ThrowawayPostgres {
        try await OffPool.run { try ThrowawayPostgres() }
    }

    nonisolated(unsafe) private static var started: ThrowawayPostgres?
    private static let lock = NSLock()

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/pg/throwaway.sh").path
    }

    private init() throws {
        // Under /tmp: the server runs as the postgres user when tests run as root, and must reach it.
        directory = "/tmp/onair-pg-swift-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        url = try Self.run(["start", directory, "--watch", "\(getpid())"])
    }

    public func createDatabase() throws -> String {
        try Self.run(["createdb", directory, "t_\(UInt64.random(in: 0...UInt64.max) % 1_000_000_000_000)"])
    }

    /// Stops the server keeping its data (a database outage), or starts it again.
    public func pause() throws { _ = try Self.run(["pause", directory]) }
    public func resume() throws { _ = try Self.run(["resume", directory]) }
    public func stop() throws { _ = try Self.run(["stop", directory]) }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs the script; its stdout (one line) or a failure carrying its stderr. Through
    /// `system(3)`, which waits for exactly its child: Foundation's `Process.waitUntilExit`
    /// never returned here once the script had left its detached watchdog behind.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let base = "/tmp/onair-pg-run-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(base + ".out"); unlink(base + ".err") }
        let quoted = ([script] + arguments).map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
        let status = system("/bin/bash \(quoted) >\(base).out 2>\(base).err </dev/null")
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        guard status == 0 else {
            let errors = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
            throw Failure(description: "throwaway.sh \(arguments.joined(separator: " ")) failed (status \(status)): \(errors)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
