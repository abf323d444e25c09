/// The per-thread figures of a level: CPU in % of one core and µs per forwarded packet.
extension LevelResult {
    /// Threads below this share of one core are summed into one line, not listed.
    static let listedThreadPercent = 0.5

    var mediaWorkerThreads: [ThreadUsage] { threads.filter(\.role.isMediaWorker) }

    /// CPU of the media worker threads together; nil when none was found.
    var mediaWorkerCPUSeconds: Double? {
        let media = mediaWorkerThreads
        return media.isEmpty ? nil : media.reduce(0) { $0 + $1.cpuSeconds }
    }

    func cpuPercent(_ seconds: Double?) -> Double? { seconds.map { $0 / windowSeconds * 100 } }

    /// `seconds` of CPU per packet received by all viewers in the window, in µs.
    func microsecondsPerPacket(_ seconds: Double?) -> Double? {
        guard let seconds, packetsReceived > 0 else { return nil }
        return seconds * 1e6 / Double(packetsReceived)
    }

    /// `onair-w2 @200: relay CPU 41.0 % (all threads), media workers 37.9 %, 5.12 µs media CPU/pkt, ...`
    var threadSummary: String {
        let sessions = workerGauges.isEmpty ? "-" : workerGauges.map { "w\($0.worker) \($0.sessions.map(String.init) ?? "-")" }
            .joined(separator: ", ")
        return "\(relay) @\(viewersRequested): relay CPU \(ResultTable.format(relayCPUPercent, 1)) % (all threads), "
            + "media workers \(ResultTable.format(cpuPercent(mediaWorkerCPUSeconds), 1)) % (\(ThreadTable.threads(mediaWorkerThreads.count))), "
            + "\(ResultTable.format(microsecondsPerPacket(mediaWorkerCPUSeconds), 2)) µs media CPU/pkt, "
            + "sessions per worker (viewers + publisher): \(sessions)"
    }
}
