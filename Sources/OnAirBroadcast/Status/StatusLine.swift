import Foundation
import OnAirRateControl

/// The live status: one line rewritten in place on a terminal, or a log line every few seconds
/// when stdout is a pipe or a file (so logs stay readable), and the summary at the end.
struct StatusLine {
    let isTerminal: Bool
    let logInterval: UInt64
    private var lastPrint: UInt64 = 0
    private var lastFrames: UInt64 = 0
    private var lastBytes: UInt64 = 0
    private var lastSample: UInt64 = 0
    private var framesPerSecond = 0.0
    private var kilobitsPerSecond = 0.0

    init(isTerminal: Bool, logIntervalSeconds: Double) {
        self.isTerminal = isTerminal
        logInterval = UInt64(max(0.5, logIntervalSeconds) * 1e9)
    }

    /// Updates the rates once a second and prints when due.
    mutating func tick(_ stats: BroadcastStatistics, now: UInt64) {
        if lastSample == 0 {
            lastSample = now
            lastPrint = now
            return
        }
        let elapsed = now - lastSample
        if elapsed >= 1_000_000_000 {
            let seconds = Double(elapsed) / 1e9
            framesPerSecond = Double(stats.videoFrames - lastFrames) / seconds
            kilobitsPerSecond = Double(stats.bytesSent - lastBytes) * 8 / 1000 / seconds
            lastFrames = stats.videoFrames
            lastBytes = stats.bytesSent
            lastSample = now
            if isTerminal {
                write("\r\u{1B}[2K" + line(stats, now: now))
            }
        }
        if !isTerminal && now - lastPrint >= logInterval {
            lastPrint = now
            write(line(stats, now: now) + "\n")
        }
    }

    func line(_ stats: BroadcastStatistics, now: UInt64) -> String {
        let elapsed = stats.startedAt.map { Double(now - $0) / 1e9 } ?? 0
        var parts = [Self.clock(elapsed),
                     String(format: "%.1f fps", framesPerSecond),
                     String(format: "%.0f kbit/s (target %d)", kilobitsPerSecond, stats.targetBitrate / 1000)]
        if let layers = stats.layers { parts.append("layers \(layers.isEmpty ? "-" : layers)") }
        parts.append("path \(stats.path ?? "-")")
        parts.append(stats.roundTripTime.map { String(format: "rtt %.0f ms", $0 * 1000) } ?? "rtt -")
        parts.append(stats.lossFraction.map { String(format: "loss %.1f%%", $0 * 100) } ?? "loss -")
        parts.append(stats.jitter.map { String(format: "jitter %.1f ms", $0 * 1000) } ?? "jitter -")
        parts.append("keyframes \(stats.keyframes)")
        if stats.droppedFrames > 0 { parts.append("dropped \(stats.droppedFrames)") }
        if stats.retransmittedPackets > 0 { parts.append("resent \(stats.retransmittedPackets)") }
        parts.append("quality \(Self.quality(stats).map(String.init) ?? "-")/5")
        return parts.joined(separator: "  ")
    }

    /// 1-5 from the latest loss, jitter and RTT (simplified E-model, ``LinkQualityScore``).
    static func quality(_ stats: BroadcastStatistics) -> Int? {
        guard let loss = stats.lossFraction else { return nil }
        return LinkQualityScore(lossPercent: loss * 100, jitter: .seconds(stats.jitter ?? 0),
                                roundTripTime: .seconds(stats.roundTripTime ?? 0)).score
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds)
        return String(format: "%02d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }

    /// Ends the in-place line before other output.
    func finish() {
        if isTerminal { write("\n") }
    }

    private func write(_ text: String) {
        Console.output(text)
    }
}
