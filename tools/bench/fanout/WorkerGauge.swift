import Foundation

/// One media worker's gauges from the relay's `/metrics` (Prometheus text):
/// `onair_worker_sessions{worker="i"}` and `onair_worker_load{worker="i"}`.
struct WorkerGauge {
    let worker: Int
    /// WebRTC sessions on the worker: its viewers, plus the publisher on the publisher's worker.
    var sessions: Int?
    /// Share of its core the worker's loop was busy over the last second (0...1), as the relay measures it.
    var load: Double?

    /// `GET /metrics` from `client`, parsed; worker order.
    static func fetch(_ client: HTTPClient) throws -> [WorkerGauge] {
        let response = try client.request("GET", path: "/metrics")
        guard response.status == 200 else { throw BenchError("GET /metrics: HTTP \(response.status)") }
        return parse(response.body)
    }

    /// The two per-worker gauges in a Prometheus text exposition; other lines are skipped.
    static func parse(_ text: String) -> [WorkerGauge] {
        var gauges: [Int: WorkerGauge] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("onair_worker_") {
            guard let open = line.firstIndex(of: "{"), let close = line.firstIndex(of: "}") else { continue }
            let name = line[..<open]
            let labels = line[line.index(after: open)..<close]
            guard labels.hasPrefix("worker=\""), let worker = Int(labels.dropFirst(8).prefix { $0 != "\"" }),
                  let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)) else { continue }
            var gauge = gauges[worker] ?? WorkerGauge(worker: worker)
            if name == "onair_worker_sessions" { gauge.sessions = Int(value) }
            if name == "onair_worker_load" { gauge.load = value }
            gauges[worker] = gauge
        }
        return gauges.keys.sorted().compactMap { gauges[$0] }
    }
}
