import Foundation

/// Prints the results: one table row per relay and level, then the per-level ratio of relay
/// CPU per forwarded packet (the last relay, Pion, against each other).
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
        if relays.count >= 2 {
            lines.append("")
            lines += ratioTable(results, levels: levels, relays: relays)
        }
        return lines.joined(separator: "\n")
    }

    /// Per level, each relay's µs/pkt and the last relay's ÷ each other's (with two relays:
    /// OnAir, Pion, and Pion ÷ OnAir).
    private static func ratioTable(_ results: [LevelResult], levels: [Int], relays: [String]) -> [String] {
        let last = relays[relays.count - 1]
        let others = relays.dropLast()
        var rows: [[String]] = []
        for level in levels {
            let cost = relays.map { relay in results.first { $0.relay == relay && $0.viewersRequested == level }?.microsecondsPerPacket }
            let ratios = cost.dropLast().map { x -> String in
                guard let x, let y = cost.last ?? nil, x > 0 else { return "-" }
                return format(y / x, 2)
            }
            rows.append(["\(level)"] + cost.map { format($0, 2) } + ratios)
        }
        return table(["viewers"] + relays.map { "\($0) µs/pkt" } + others.map { "\(last) / \($0)" }, rows)
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
