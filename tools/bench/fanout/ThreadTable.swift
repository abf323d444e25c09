/// Prints a level's relay threads (CPU % of one core, µs per forwarded packet) and its media
/// workers side by side with the sessions and load the relay reports for them.
enum ThreadTable {
    static func render(_ r: LevelResult) -> [String] {
        let threshold = LevelResult.listedThreadPercent
        let listed = r.threads.filter { $0.role.isMediaWorker || (r.cpuPercent($0.cpuSeconds) ?? 0) > threshold }
        let rest = r.threads.filter { t in !listed.contains { $0.tid == t.tid } }
        var rows = listed.map { t in
            ["\(t.tid)", t.comm, t.role.label, ResultTable.format(r.cpuPercent(t.cpuSeconds), 1),
             ResultTable.format(r.microsecondsPerPacket(t.cpuSeconds), 2)]
        }
        let restSeconds = rest.reduce(0) { $0 + $1.cpuSeconds }
        rows.append(["", rest.count == 1 ? "1 other" : "\(rest.count) others", "each ≤ \(threshold) %", ResultTable.format(r.cpuPercent(restSeconds), 1),
                     ResultTable.format(r.microsecondsPerPacket(restSeconds), 2)])
        rows.append(["", "process", "all threads", ResultTable.format(r.relayCPUPercent, 1), ResultTable.format(r.microsecondsPerPacket, 2)])
        var lines = ["\(r.relay) @\(r.viewersRequested) viewers: relay threads over \(ResultTable.format(r.windowSeconds, 1)) s, "
            + "\(ResultTable.format(r.packetsPerSecond, 0)) pkts/s to viewers"]
        lines += ResultTable.table(["tid", "thread", "role", "CPU %", "µs/pkt"], rows)
        lines.append("")
        lines += workerRows(r)
        return lines
    }

    /// "1 thread", "2 threads".
    static func threads(_ count: Int) -> String { count == 1 ? "1 thread" : "\(count) threads" }

    /// One row per media worker: its thread, the relay's gauges for it, its CPU; then the sum.
    private static func workerRows(_ r: LevelResult) -> [String] {
        var byWorker: [Int: ThreadUsage] = [:]
        for t in r.mediaWorkerThreads { if case .mediaWorker(let i) = t.role { byWorker[i] = t } }
        var gauges: [Int: WorkerGauge] = [:]
        for g in r.workerGauges { gauges[g.worker] = g }
        let indices = Set(byWorker.keys).union(gauges.keys).sorted()
        guard !indices.isEmpty else { return ["(no media worker thread or gauge found)"] }
        var rows = indices.map { i in
            let t = byWorker[i]
            return ["\(i)", t.map { "\($0.comm) (\($0.tid))" } ?? "-", gauges[i]?.sessions.map(String.init) ?? "-",
                    ResultTable.format(gauges[i]?.load.map { $0 * 100 }, 1),
                    ResultTable.format(r.cpuPercent(t?.cpuSeconds), 1), ResultTable.format(r.microsecondsPerPacket(t?.cpuSeconds), 2)]
        }
        let sessions = r.workerGauges.compactMap(\.sessions)
        rows.append(["all", Self.threads(byWorker.count), sessions.isEmpty ? "-" : "\(sessions.reduce(0, +))", "",
                     ResultTable.format(r.cpuPercent(r.mediaWorkerCPUSeconds), 1),
                     ResultTable.format(r.microsecondsPerPacket(r.mediaWorkerCPUSeconds), 2)])
        return ResultTable.table(["worker", "thread (tid)", "sessions", "relay load %", "CPU %", "µs/pkt"], rows)
    }
}

extension ThreadTable {
    /// Every OnAir level's thread and worker tables, then one summary line per level; nil
    /// when no level has per-thread figures.
    static func section(_ results: [LevelResult]) -> String? {
        let measured = results.filter { !$0.threads.isEmpty || !$0.workerGauges.isEmpty }
        guard !measured.isEmpty else { return nil }
        var lines = ["", "Relay threads per level: CPU % of one core (utime + stime from /proc/<pid>/task/*/stat over the window), "
            + "µs/pkt = that CPU ÷ packets received by all viewers; sessions and relay load % from /metrics at the window's end", ""]
        for r in measured { lines += render(r) + [""] }
        lines.append("Per worker count and level:")
        lines += measured.map(\.threadSummary)
        return lines.joined(separator: "\n")
    }
}
