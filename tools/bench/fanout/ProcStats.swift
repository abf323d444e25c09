import Foundation
import Glibc

/// CPU and socket counters the kernel keeps in /proc.
enum ProcStats {
    /// Clock ticks per second for /proc/<pid>/stat times (USER_HZ).
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// utime + stime of a whole process (all threads), in seconds (proc(5) fields 14 and 15).
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3, so utime (14) is index 11 here.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    /// The 1-minute load average: more than ~2 on this 2-core machine means other work competed.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    /// Our own CPU time (user + system), in seconds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Datagrams the kernel dropped at IPv4 UDP sockets bound to `ports` (the `drops` column
    /// of /proc/net/udp): receive buffer overflows, i.e. a reader that did not keep up.
    static func udpDrops(localPorts ports: Set<UInt16>) -> UInt64 {
        guard let text = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8) else { return 0 }
        var total: UInt64 = 0
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 13, let colon = fields[1].lastIndex(of: ":"),
                  let port = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16),
                  ports.contains(port), let drops = UInt64(fields[fields.count - 1]) else { continue }
            total += drops
        }
        return total
    }
}
