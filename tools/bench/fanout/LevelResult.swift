import BenchSupport

/// What one load level measured against one relay, over the window.
struct LevelResult {
    var relay: String
    var viewersRequested: Int
    var viewersConnected: Int
    /// Turned away with 503 by the relay's admission check: not served, by design.
    var viewersRefused: Int
    var setupSeconds: Double
    var windowSeconds: Double
    /// utime + stime of the relay process over the window; nil when its pid is unknown.
    var relayCPUSeconds: Double?
    var benchCPUSeconds: Double
    /// Publisher packets (audio + video) sent in the window: what each viewer should receive.
    var publisherPackets: UInt64
    /// Publisher video packets sent in the window, and each connected viewer's video packets
    /// received in it: a viewer the relay paused or starved shows here even when the totals
    /// of the others hide it in `loss %`.
    var publisherVideoPackets: UInt64
    var videoReceivedPerViewer: [UInt64]
    /// Packets received by all connected viewers in the window.
    var packetsReceived: UInt64
    /// Per viewer, highest sequence number advance: packets the relay numbered for it.
    var sequenceSpan: UInt64
    var latenciesNanoseconds: [Int64]
    /// Datagrams the kernel dropped at the load tool's viewer sockets (receive buffer full).
    var benchSocketDrops: UInt64
    var decryptFailures: UInt64
    /// Of ``decryptFailures``, replays (RFC 3711 §3.3.2).
    var decryptReplays: UInt64
    var stampMissing: UInt64
    var keyframes: UInt64
    /// 1-minute load average at the end of the window.
    var loadAverage: Double?
    /// The media workers the relay was started with (`--workers`); nil: its own default.
    var workers: Int?
    /// Each relay thread's CPU over the window (OnAir with a known pid; empty otherwise).
    var threads: [ThreadUsage] = []
    /// Each media worker's gauges from the relay's /metrics at the end of the window.
    var workerGauges: [WorkerGauge] = []

    var relayCPUPercent: Double? { relayCPUSeconds.map { $0 / windowSeconds * 100 } }
    var benchCPUPercent: Double { benchCPUSeconds / windowSeconds * 100 }
    var packetsPerSecond: Double { Double(packetsReceived) / windowSeconds }

    /// Relay CPU per packet delivered to a viewer, in µs.
    var microsecondsPerPacket: Double? {
        guard let relayCPUSeconds, packetsReceived > 0 else { return nil }
        return relayCPUSeconds * 1e6 / Double(packetsReceived)
    }

    /// 1 − received / (connected viewers × publisher packets), in %.
    var lossPercent: Double {
        let expected = Double(publisherPackets) * Double(viewersConnected)
        guard expected > 0 else { return 0 }
        return max(0, 1 - Double(packetsReceived) / expected) * 100
    }

    /// Sequence-gap loss: numbered for a viewer but never received, in %.
    var gapLossPercent: Double {
        guard sequenceSpan > 0 else { return 0 }
        return max(0, 1 - Double(packetsReceived) / Double(sequenceSpan)) * 100
    }

    /// The share of the publisher's video packets a viewer must receive to count as served.
    static let fullVideoShare = 0.98

    /// Connected viewers that received at least ``fullVideoShare`` of the publisher's video packets.
    var viewersWithFullVideo: Int {
        let needed = Double(publisherVideoPackets) * Self.fullVideoShare
        return videoReceivedPerViewer.filter { Double($0) >= needed }.count
    }

    /// Requested viewers that did not get the video: not connected, or under ``fullVideoShare``.
    /// Viewers admitted that did not receive the video in full.
    var viewersShort: Int { viewersRequested - viewersRefused - viewersWithFullVideo }

    /// The lowest and the median viewer's received ÷ published video packets, in %.
    var lowestVideoPercent: Double? { videoPercent(rank: 0) }
    var medianVideoPercent: Double? { videoPercent(rank: videoReceivedPerViewer.count / 2) }

    private func videoPercent(rank: Int) -> Double? {
        guard publisherVideoPackets > 0, rank < videoReceivedPerViewer.count else { return nil }
        return Double(videoReceivedPerViewer.sorted()[rank]) / Double(publisherVideoPackets) * 100
    }

    /// The p-th percentile of the latency samples, in µs (nearest rank).
    func latencyMicroseconds(percentile p: Double) -> Double? {
        guard !latenciesNanoseconds.isEmpty else { return nil }
        return Percentiles(latenciesNanoseconds.map { Double($0) }).at(p) / 1000
    }
}
