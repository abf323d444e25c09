import Foundation
import Testing
@testable import OnAirRelay

/// The `hls:` section of relay.yaml, its ONAIR_HLS_* environment overrides, and how the
/// engine takes it.
@Suite("HLS: config")
struct HLSConfigTests: RelayConfigTesting {
    @Test("defaults: enabled, 333.34 ms parts, 2 s segments, 30 s window, 60 s after the end, no recording")
    func defaults() throws {
        let hls = try load(nil).hls
        #expect(hls == HLSSettings())
        #expect(hls.enabled && hls.partTarget == .microseconds(333_340) && hls.segmentTarget == .seconds(2))
        #expect(hls.window == .seconds(30) && hls.keepAfterEnd == .seconds(60))
        #expect(hls.recordDirectory == nil && hls.recordQueueBytes == 64 * 1024 * 1024)
    }

    @Test("the section in YAML, every key")
    func yamlSection() throws {
        let hls = try load("""
            hls:
              enabled: false
              part_target_seconds: 0.25
              segment_target_seconds: 1.5
              window_seconds: 12
              keep_after_end_seconds: 0
              record_directory: /var/lib/onair/recordings
              record_queue_bytes: 2097152
            """).hls
        #expect(!hls.enabled && hls.partTarget == .milliseconds(250) && hls.segmentTarget == .milliseconds(1500))
        #expect(hls.window == .seconds(12) && hls.keepAfterEnd == .zero)
        #expect(hls.recordDirectory == "/var/lib/onair/recordings" && hls.recordQueueBytes == 2_097_152)
    }

    @Test("a partial section keeps the other defaults; whole seconds may be written as integers")
    func partialSection() throws {
        var expected = HLSSettings()
        expected.segmentTarget = .seconds(4)
        #expect(try load("hls:\n  segment_target_seconds: 4\n").hls == expected)
    }

    @Test("environment: ONAIR_HLS_* override the file")
    func environment() throws {
        let hls = try load("hls:\n  part_target_seconds: 0.2\n  record_directory: /from/file\n", environment: [
            "ONAIR_HLS_ENABLED": "false", "ONAIR_HLS_PART_TARGET": "0.3", "ONAIR_HLS_SEGMENT_TARGET": "3",
            "ONAIR_HLS_WINDOW": " 20 ", "ONAIR_HLS_KEEP_AFTER_END": "5.5", "ONAIR_HLS_RECORD_DIRECTORY": "/tmp/rec",
        ]).hls
        #expect(!hls.enabled && hls.partTarget == .milliseconds(300) && hls.segmentTarget == .seconds(3))
        #expect(hls.window == .seconds(20) && hls.keepAfterEnd == .milliseconds(5500))
        #expect(hls.recordDirectory == "/tmp/rec")
        // An empty directory variable turns off a recording the file asked for.
        #expect(try load("hls:\n  record_directory: /from/file\n", environment: ["ONAIR_HLS_RECORD_DIRECTORY": ""]).hls
            .recordDirectory == nil)
        for value in ["1", "TRUE", "yes", "on"] {
            #expect(try load("hls:\n  enabled: false\n", environment: ["ONAIR_HLS_ENABLED": value]).hls.enabled, "\(value)")
        }
    }

    @Test("malformed environment values name the variable", arguments: [
        ("ONAIR_HLS_ENABLED", "maybe"), ("ONAIR_HLS_PART_TARGET", "fast"), ("ONAIR_HLS_SEGMENT_TARGET", ""),
        ("ONAIR_HLS_WINDOW", "nan"), ("ONAIR_HLS_KEEP_AFTER_END", "1e300"),
    ])
    func badEnvironment(name: String, value: String) throws {
        let message = try #require(problem(nil, environment: [name: value]), "\(name)=\(value) was accepted")
        #expect(message.contains(name), "\(message)")
    }

    @Test("mistakes are named", arguments: [
        ("hls:\n  part_target: 0.3\n", "hls.part_target"),
        ("hls:\n  part_target_seconds: 0.05\n", "part_target_seconds"),
        ("hls:\n  part_target_seconds: 3\n", "part_target_seconds"),
        ("hls:\n  segment_target_seconds: 90\n  part_target_seconds: 1\n", "segment_target_seconds"),
        ("hls:\n  window_seconds: 0\n", "window_seconds"),
        ("hls:\n  keep_after_end_seconds: -1\n", "keep_after_end_seconds"),
        ("hls:\n  record_directory: \"\"\n", "record_directory"),
        ("hls:\n  record_queue_bytes: 1000\n", "record_queue_bytes"),
        ("hls:\n  enabled: sometimes\n", "hls.enabled"),
        ("hls:\n  window_seconds: .inf\n", "hls.window_seconds"),
    ])
    func problems(yaml: String, key: String) throws {
        let message = try #require(problem(yaml), "accepted: \(yaml)")
        #expect(message.contains(key), "\(message)")
    }

    @Test("the shipped config/relay.yaml documents every hls key with its default")
    func shippedExample() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = repo.appendingPathComponent("config/relay.yaml").path
        let config = try RelayConfigLoader.load(path: path, environment: [:])
        #expect(config.hls == HLSSettings())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in HLSSettings.CodingKeys.allCases { #expect(text.contains(key.stringValue + ":"), "\(key.stringValue)") }
        for variable in ["ONAIR_HLS_ENABLED", "ONAIR_HLS_PART_TARGET", "ONAIR_HLS_SEGMENT_TARGET", "ONAIR_HLS_WINDOW",
                         "ONAIR_HLS_KEEP_AFTER_END", "ONAIR_HLS_RECORD_DIRECTORY"] {
            #expect(text.contains(variable), "\(variable)")
        }
    }

    @Test("the LL-HLS service packages with the configured settings")
    func engineTakesTheSection() async throws {
        let relay = try await TestRelay.start { config in
            config.hls.partTarget = .milliseconds(200)
            config.hls.enabled = false
        }
        let settings = relay.workers.hls.settings
        await relay.stop()
        #expect(settings == relay.config.hls && settings.partTarget == .milliseconds(200) && !settings.enabled)
    }
}
