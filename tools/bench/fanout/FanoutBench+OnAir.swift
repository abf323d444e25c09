import ArgumentParser
import Foundation

/// Starting the OnAir relay, once per `--workers` count.
extension FanoutBench {
    /// `--workers 1,2,4` as counts (nil when not given).
    static func workerCounts(_ text: String?) throws -> [Int]? {
        guard let text else { return nil }
        let counts = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw ValidationError("--workers wants worker counts ≥ 1 separated by commas, e.g. 1,2,4; got \(text)")
        }
        return counts.compactMap { $0 }
    }

    /// Checks before any run that W media workers' UDP ports (--udp-port ..< --udp-port + W)
    /// end by 65535 and hold neither HTTP port.
    func validatePorts(workers: Int) throws {
        let ports = Int(udpPort)...(Int(udpPort) + workers - 1)
        guard ports.upperBound <= 65_535, !ports.contains(Int(httpPort)), !ports.contains(Int(pionPort)) else {
            throw ValidationError("\(workers) media workers need UDP ports \(ports.lowerBound)-\(ports.upperBound): "
                + "up to 65535 and clear of --http-port \(httpPort) and --pion-port \(pionPort); pick another --udp-port")
        }
    }

    /// Starts `relay serve` on --http-port and --udp-port with `environment`; `workers`
    /// (ONAIR_MEDIA_WORKERS, when known): its UDP ports must be valid and free.
    func startOnAir(name: String, environment: [String: String], workers: Int?) throws -> (process: RelayProcess, workers: Int?) {
        if let workers {
            try validatePorts(workers: workers)
            let ports = Int(udpPort)...(Int(udpPort) + workers - 1)
            if let busy = PortCheck.firstBusyUDP(ports) {
                throw BenchError("\(name): UDP port \(busy) (of \(ports.lowerBound)-\(ports.upperBound)) is in use; pick another --udp-port")
            }
        }
        let process = try RelayProcess(
            name: name, executable: relayBin,
            arguments: ["serve", "--http-port", "\(httpPort)", "--udp-port", "\(udpPort)"] + relayArg,
            environment: environment,
            core: relayCore, httpPort: httpPort, logPath: "/tmp/fanout-bench-\(name).log")
        return (process, workers)
    }
}
