import Foundation
import Glibc

/// Shields the measurement from other work on the machine. With the scheduler's autogroups
/// (`/proc/sys/kernel/sched_autogroup_enabled`), a task's nice only ranks it within its session:
/// every session shares the CPU equally, so a relay at nice -10 still gets a bare share next to
/// other sessions' compilers. So we start our own session (the relays we launch join it) and
/// give that autogroup the nice value too.
enum SchedulingPriority {
    static func raise(nice: Int32) {
        _ = setsid()  // fails harmlessly if we already lead a process group; the current session is used then
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) != 0 {
            warn("could not set nice \(nice) (not root?)")
        }
        guard let autogroup = FileHandle(forWritingAtPath: "/proc/self/autogroup") else { return }
        defer { try? autogroup.close() }
        do {
            try autogroup.write(contentsOf: Data("\(nice)\n".utf8))
        } catch {
            warn("could not set the autogroup nice to \(nice): \(error)")
        }
    }

    /// SCHED_RR priority 1 for every thread of this process (`chrt -a`); the processes we start
    /// afterwards inherit it. RT throttling (`sched_rt_runtime_us`, 95% by default) bounds what
    /// we can take from everyone else.
    static func makeRoundRobin() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chrt")
        process.arguments = ["-a", "-r", "-p", "1", "\(ProcessInfo.processInfo.processIdentifier)"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("chrt could not make us SCHED_RR (not root? try --no-realtime)") }
    }

    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data("fanout-bench: \(message); continuing\n".utf8))
    }
}
