import Foundation
@testable import OnAirRelay

/// What every relay.yaml test suite needs: load YAML text (written to a fresh temporary file)
/// with an environment, or get the problem it reports. One copy for the loader, webhooks and
/// HLS config suites.
protocol RelayConfigTesting {}

extension RelayConfigTesting {
    /// Writes `yaml` to a fresh temporary file and loads it with `environment` (nil: no file).
    func load(_ yaml: String?, environment: [String: String] = [:]) throws -> RelayConfig {
        guard let yaml else { return try RelayConfigLoader.load(path: nil, environment: environment) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("relaytests-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try RelayConfigLoader.load(path: url.path, environment: environment)
    }

    /// The problem text `load` throws, or nil when it loads.
    func problem(_ yaml: String?, environment: [String: String] = [:]) -> String? {
        do {
            _ = try load(yaml, environment: environment)
            return nil
        } catch let problem as RelayConfigLoader.Problem {
            return problem.description
        } catch {
            return "not a RelayConfigLoader.Problem: \(error)"
        }
    }
}
