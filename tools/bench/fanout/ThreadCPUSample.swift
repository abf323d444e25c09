import Foundation

/// One thread's CPU time so far, read from /proc/<pid>/task/<tid>/{stat,comm}.
struct ThreadCPUSample {
    let tid: Int32
    /// The thread's name (`comm`, at most 15 bytes): SwiftNIO names its loops `NIO-ELT-<group>-#<n>`.
    let comm: String
    /// utime + stime in clock ticks (`sysconf(_SC_CLK_TCK)`, see ``ProcStats/ticksPerSecond``).
    let ticks: UInt64

    /// Every thread of `pid` now; threads that exit while being read are left out.
    static func all(pid: Int32) -> [ThreadCPUSample] {
        let directory = "/proc/\(pid)/task"
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return tids.compactMap { name in
            guard let tid = Int32(name),
                  let stat = try? String(contentsOfFile: "\(directory)/\(name)/stat", encoding: .utf8),
                  let ticks = cpuTicks(stat: stat) else { return nil }
            let comm = (try? String(contentsOfFile: "\(directory)/\(name)/comm", encoding: .utf8)) ?? "?"
            return ThreadCPUSample(tid: tid, comm: comm.trimmingCharacters(in: .newlines), ticks: ticks)
        }
    }

    /// utime (field 14) + stime (field 15) of a stat line (proc(5)); the fields are counted
    /// after the last ")" because comm may hold spaces and parentheses.
    static func cpuTicks(stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return user + system
    }
}
