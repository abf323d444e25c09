import BenchSupport
import Foundation

/// Runs every load level against one relay: publisher first, then viewers added level by
/// level, each level warmed up and measured.
struct RelayRunner {
    let settings: LoadEngine.Settings
    let levels: [Int]
    let window: Double
    let warmup: Double
    let connectTimeout: Double

    /// `onAir`: also measure the relay's threads and read its workers' gauges (/metrics);
    /// `workers`: the media workers it was started with, when known.
    func run(_ relay: RelayProcess, onAir: Bool = false, workers: Int? = nil) throws -> [LevelResult] {
        let engine = try LoadEngine(settings: settings, client: try HTTPClient(baseURL: relay.baseURL))
        report("\(relay.name): publishing to \(relay.baseURL)/whip/\(settings.room)")
        try engine.connectPublisher(timeoutSeconds: 15)
        engine.pump(until: BenchClock.monotonic() + 1_000_000_000)
        var results: [LevelResult] = []
        for level in levels {
            let start = BenchClock.monotonic()
            try engine.addViewers(upTo: level)
            engine.waitForViewers(timeoutSeconds: connectTimeout)
            let setup = Double(BenchClock.monotonic() - start) / 1e9
            let connected = engine.viewers.filter(\.isConnected).count
            report("\(relay.name): \(connected)/\(level) viewers connected in \(String(format: "%.1f", setup)) s")
            for (reason, count) in failureSummary(engine.viewers) { report("  \(count) failed: \(reason)") }
            engine.pump(until: BenchClock.monotonic() + UInt64(warmup * 1e9))
            var result = engine.measure(relay: relay.name, requested: level, setupSeconds: setup, windowSeconds: window,
                                        relayPID: relay.pid, threadsOf: onAir ? relay.pid : nil, workers: workers)
            if onAir {
                do {
                    result.workerGauges = try WorkerGauge.fetch(HTTPClient(baseURL: relay.baseURL))
                } catch {
                    report("\(relay.name): no worker gauges from /metrics: \(error)")
                }
            }
            report("\(relay.name) @\(level): relay CPU \(ResultTable.format(result.relayCPUPercent, 1)) %, "
                + "\(ResultTable.format(result.microsecondsPerPacket, 2)) µs/pkt, \(ResultTable.format(result.packetsPerSecond, 0)) pkt/s, "
                + "loss \(ResultTable.format(result.lossPercent, 2)) %, "
                + "\(result.viewersWithFullVideo)/\(level) viewers got ≥ \(Int(LevelResult.fullVideoShare * 100)) % of the "
                + "\(result.publisherVideoPackets) video packets published (lowest \(ResultTable.format(result.lowestVideoPercent, 1)) %, "
                + "median \(ResultTable.format(result.medianVideoPercent, 1)) %), "
                + "latency p50 \(ResultTable.format(result.latencyMicroseconds(percentile: 50), 0)) µs "
                + "p99 \(ResultTable.format(result.latencyMicroseconds(percentile: 99), 0)) µs, "
                + "bench CPU \(ResultTable.format(result.benchCPUPercent, 1)) %, "
                + "keyframes \(result.keyframes), decrypt failures \(result.decryptFailures) (replays \(result.decryptReplays)), stamps missing \(result.stampMissing), "
                + "loadavg \(ResultTable.format(result.loadAverage, 1))")
            if onAir { report(result.threadSummary) }
            results.append(result)
            if let reason = engine.publisher?.closeReason {
                report("\(relay.name): the publisher's session ended (\(reason)); no further levels on this relay")
                break
            }
        }
        engine.closeAll()
        engine.pump(until: BenchClock.monotonic() + 300_000_000)
        return results
    }

    private func failureSummary(_ viewers: [Viewer]) -> [(String, Int)] {
        var counts: [String: Int] = [:]
        for viewer in viewers {
            switch viewer.phase {
            case .failed(let reason): counts[String(reason.prefix(160)), default: 0] += 1
            case .signalling, .connecting: counts["still connecting", default: 0] += 1
            case .refused: counts["refused (503: the relay's admission limit)", default: 0] += 1
            case .connected: break
            }
        }
        return counts.sorted { $0.value > $1.value }
    }

    private func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
