/// CPU time one relay thread used over a measurement window.
struct ThreadUsage {
    let tid: Int32
    let comm: String
    let role: RelayThreadRole
    let cpuSeconds: Double

    /// Per thread, end minus start; a thread that started inside the window counts from 0, one
    /// that ended inside it is missing (its time is still in the process's total). Busiest first.
    static func between(_ start: [ThreadCPUSample], _ end: [ThreadCPUSample], pid: Int32, workers: Int?) -> [ThreadUsage] {
        var before: [Int32: UInt64] = [:]
        for sample in start { before[sample.tid] = sample.ticks }
        var comms: [Int32: String] = [:]
        for sample in end { comms[sample.tid] = sample.comm }
        let roles = RelayThreadRole.classify(comms, pid: pid, workers: workers)
        return end.map { sample in
            let ticks = sample.ticks - min(sample.ticks, before[sample.tid] ?? 0)
            return ThreadUsage(tid: sample.tid, comm: sample.comm, role: roles[sample.tid] ?? .other,
                               cpuSeconds: Double(ticks) / ProcStats.ticksPerSecond)
        }
        .sorted { ($0.cpuSeconds, $1.tid) > ($1.cpuSeconds, $0.tid) }
    }
}
