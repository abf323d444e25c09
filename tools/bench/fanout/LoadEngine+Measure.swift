import BenchSupport

/// One measurement window: counters before and after, with the sockets drained at both ends so
/// that what the publisher sent and what viewers got line up.
extension LoadEngine {
    /// `threadsOf`: also read the relay's per-thread CPU (OnAir, started with `workers` media workers).
    func measure(relay: String, requested: Int, setupSeconds: Double, windowSeconds: Double, relayPID: Int32?,
                 threadsOf threadPID: Int32? = nil, workers: Int? = nil) -> LevelResult {
        let ports = Set(viewers.map(\.endpoint.localPort))
        drain()
        let start = BenchClock.monotonic()
        let relayCPU0 = relayPID.flatMap(ProcStats.cpuSeconds(pid:))
        let threads0 = threadPID.map(ThreadCPUSample.all(pid:))
        let benchCPU0 = ProcStats.ownCPUSeconds()
        let drops0 = ProcStats.udpDrops(localPorts: ports)
        let publishedVideo0 = publisher?.videoPackets ?? 0
        let published0 = publishedVideo0 + (publisher?.audioPackets ?? 0)
        let keyframes0 = publisher?.keyframes ?? 0
        let failures0 = viewers.reduce(0) { $0 + $1.decryptFailures }
        let replays0 = viewers.reduce(0) { $0 + $1.decryptReplays }
        let missing0 = viewers.reduce(0) { $0 + $1.stampMissing }
        let before = viewers.map(\.snapshot)
        latencies.removeAll(keepingCapacity: true)
        measuring = true

        pump(until: start + UInt64(windowSeconds * 1e9))
        drain()

        measuring = false
        let elapsed = Double(BenchClock.monotonic() - start) / 1e9
        let relayCPU1 = relayPID.flatMap(ProcStats.cpuSeconds(pid:))
        let threads1 = threadPID.map(ThreadCPUSample.all(pid:))
        let benchCPU1 = ProcStats.ownCPUSeconds()
        let publishedVideo1 = publisher?.videoPackets ?? 0
        let published1 = publishedVideo1 + (publisher?.audioPackets ?? 0)
        var received: UInt64 = 0
        var videoPerViewer: [UInt64] = []
        var span: UInt64 = 0
        var connected = 0
        for (viewer, old) in zip(viewers, before) where viewer.isConnected {
            connected += 1
            let now = viewer.snapshot
            received += (now.audio.received - old.audio.received) + (now.video.received - old.video.received)
            videoPerViewer.append(now.video.received - old.video.received)
            span += Self.span(from: old.audio, to: now.audio) + Self.span(from: old.video, to: now.video)
        }
        var relayCPU: Double?
        if let relayCPU0, let relayCPU1 { relayCPU = relayCPU1 - relayCPU0 }
        var threads: [ThreadUsage] = []
        if let threadPID, let threads0, let threads1 {
            threads = ThreadUsage.between(threads0, threads1, pid: threadPID, workers: workers)
        }
        return LevelResult(
            relay: relay, viewersRequested: requested, viewersConnected: connected,
            viewersRefused: viewers.filter { $0.phase == .refused }.count, setupSeconds: setupSeconds,
            windowSeconds: elapsed, relayCPUSeconds: relayCPU, benchCPUSeconds: benchCPU1 - benchCPU0,
            publisherPackets: published1 - published0, publisherVideoPackets: publishedVideo1 - publishedVideo0,
            videoReceivedPerViewer: videoPerViewer, packetsReceived: received, sequenceSpan: span,
            latenciesNanoseconds: latencies, benchSocketDrops: ProcStats.udpDrops(localPorts: ports) - drops0,
            decryptFailures: viewers.reduce(0) { $0 + $1.decryptFailures } - failures0,
            decryptReplays: viewers.reduce(0) { $0 + $1.decryptReplays } - replays0,
            stampMissing: viewers.reduce(0) { $0 + $1.stampMissing } - missing0,
            keyframes: (publisher?.keyframes ?? 0) - keyframes0, loadAverage: ProcStats.loadAverage(),
            workers: workers, threads: threads)
    }

    /// Sequence numbers a track advanced by; a track that started inside the window counts
    /// what it received (its first number is not known).
    private static func span(from old: TrackCounter.Snapshot, to new: TrackCounter.Snapshot) -> UInt64 {
        guard old.highest >= 0 else { return new.received - old.received }
        return UInt64(max(0, new.highest - old.highest))
    }
}
