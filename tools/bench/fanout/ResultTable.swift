import Foundation

/// Prints the results: one table row per relay and level, then the per-level ratio of relay
/// CPU per forwarded packet.
enum ResultTable {
    static func render(_ results: [LevelResult], levels: [Int], relays: [String]) -> String {
        var lines: [String] = []
        let header = ["viewers", "relay", "conn", "refused", "video ≥\(Int(LevelResult.fullVideoShare * 100)) %", "lowest video %",
                      "relay CPU %", "µs/pkt", "pkts out/s", "loss %", "gap loss %",
                      "lat p50 µs", "lat p99 µs", "samples", "bench CPU %", "bench drops", "loadavg"]
        var rows: [[String]] = []
        for level in levels {
            for relay in relays {
                guard let r = results.first(where: { $0.relay == relay && $0.viewersRequested == level }) else { continue }
                rows.append([
                    "\(level)", relay, "\(r.viewersConnected)", "\(r.viewersRefused)", "\(r.viewersWithFullVideo)", format(r.lowestVideoPercent, 1),
                    format(r.relayCPUPercent, 1), format(r.microsecondsPerPacket, 2), format(r.packetsPerSecond, 0),
                    format(r.lossPercent, 2), format(r.gapLossPercent, 2),
                    format(r.latencyMicroseconds(percentile: 50), 0), format(r.latencyMicroseconds(percentile: 99), 0),
                    "\(r.latenciesNanoseconds.count)", format(r.benchCPUPercent, 1), "\(r.benchSocketDrops)",
                    format(r.loadAverage, 1),
                ])
            }
        }
        lines += table(header, rows)
        if relays.count == 2 {
            lines.append("")
            var ratioRows: [[String]] = []
            for level in levels {
                let a = results.first { $0.relay == relays[0] && $0.viewersRequested == level }
                let b = results.first { $0.relay == relays[1] && $0.viewersRequested == level }
                let ratio: Double? = {
                    guard let x = a?.microsecondsPerPacket, let y = b?.microsecondsPerPacket, x > 0 else { return nil }
                    return y / x
                }()
                ratioRows.append(["\(level)", format(a?.microsecondsPerPacket, 2), format(b?.microsecondsPerPacket, 2), format(ratio, 2)])
            }
            lines += table(["viewers", "\(relays[0]) µs/pkt", "\(relays[1]) µs/pkt", "\(relays[1]) / \(relays[0])"], ratioRows)
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double?, _ decimals: Int) -> String {
        guard let value, value.isFinite else { return "-" }
        return String(format: "%.\(decimals)f", value)
    }

    /// A Markdown table with right-aligned, padded columns (readable as plain text too).
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { i, cell in String(repeating: " ", count: widths[i] - cell.count) + cell }
                .joined(separator: " | ") + " |"
        }
        return [line(header), "|" + widths.map { String(repeating: "-", count: $0 + 1) + ":" }.joined(separator: "|") + "|"]
            + rows.map(line)
    }
}
