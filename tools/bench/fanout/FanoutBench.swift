import ArgumentParser
import Foundation
import Glibc

@main
struct FanoutBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout-bench",
        abstract: "WHEP fan-out load: one WHIP publisher, N viewers, relay CPU per forwarded packet (OnAir vs Pion).",
        discussion: "See tools/bench/README.md for what each column means.")

    @Option(help: "OnAir relay executable to start (ignored with --relay-url).")
    var relayBin = ".build/release/relay"

    @Option(parsing: .singleValue, help: "Extra argument for the OnAir relay we start (repeatable), e.g. --relay-arg=--config --relay-arg=bench.yaml.")
    var relayArg: [String] = []

    @Option(parsing: .singleValue, help: "Extra KEY=VALUE environment for the OnAir relay we start (repeatable).")
    var relayEnv: [String] = []

    @Option(help: ArgumentHelp(
        "Media worker counts to run OnAir with, in order (e.g. 1,2,4): the relay is started once per count with "
            + "ONAIR_MEDIA_WORKERS=W (this wins over --relay-env ONAIR_MEDIA_WORKERS=...) and UDP ports --udp-port ..< --udp-port + W, "
            + "and runs every level. Default: one run with the relay's own setting.",
        valueName: "counts"))
    var workers: String?

    @Option(help: "Attach to a running OnAir relay at this base URL (e.g. http://127.0.0.1:8080) instead of starting one.")
    var relayURL: String?

    @Option(help: "Pid of the attached relay, for its CPU figures.")
    var relayPID: Int32?

    @Option(help: "Pion reference relay executable, relative to the repository root by default (../shared/refpeer/build.sh .build/refpeer makes it); '' to skip.")
    var pionBin = FanoutBench.defaultPionBin

    @Option(help: "Viewer counts to run, in order; viewers are added between levels.")
    var levels = "50,200,500,1000"

    @Option(help: "Seconds measured per level.")
    var window = 10.0

    @Option(help: "Seconds between the last viewer connecting and the window.")
    var warmup = 5.0

    @Option(help: "Decrypt one RTP packet in this many per viewer for its latency stamp.")
    var sampleEvery = 50

    @Option(help: "Video bitrate in bit/s.")
    var videoBitrate = 2_500_000

    @Option(help: "Milliseconds between socket sweeps of the load loop.")
    var tickMs = 10.0

    @Option(help: "Seconds between each viewer's RTCP receiver reports (0: none).")
    var rrInterval = 1.0

    @Flag(help: "Viewers negotiate transport-cc and send transport-wide feedback every 100 ms, so the relay runs its delay-based estimator and layer selection per viewer on real feedback.")
    var transportCC = false

    @Flag(help: "Viewers connect over ICE-TCP (RFC 6544: the relay's passive TCP candidate, RFC 4571 framing) instead of UDP; the Pion relay is skipped (it has no ICE-TCP).")
    var tcp = false

    @Option(help: "Core the relays are pinned to (taskset).")
    var relayCore = 0

    @Option(help: "Core this load tool is pinned to.")
    var benchCore = 1

    @Option(help: "HTTP port for the OnAir relay we start (UDP media uses --udp-port).")
    var httpPort: UInt16 = 18_080

    @Option(help: "First UDP media port for the OnAir relay we start: worker i listens on this + i.")
    var udpPort: UInt16 = 18_090

    @Option(help: "HTTP port for the Pion relay we start.")
    var pionPort: UInt16 = 18_480

    @Option(help: "Seconds a level may take to connect its new viewers.")
    var connectTimeout = 60.0

    @Option(help: "Nice value for this tool and the relays it starts (they inherit it), to shield the measurement from other work on the machine; 0 leaves it alone.")
    var nice: Int32 = -10

    @Flag(inversion: .prefixedNo, help: "Run this tool and the relays it starts as SCHED_RR priority 1 (inherited), so other work on a shared machine cannot starve them; the kernel still leaves 5% of each core to others.")
    var realtime = true

    @Option(help: "Room name used on both relays.")
    var room = "fanout-bench"

    /// Where ../shared/refpeer/build.sh puts the Pion relay when run from the repository root
    /// (as tools/bench/run-fanout.sh and the interop tests' harness.refpeer_bin do).
    static let defaultPionBin = ".build/refpeer/bin/relay"

    /// Exit status when some viewer received less than ``LevelResult/fullVideoShare`` of the
    /// video (1 is left to errors that stop the run).
    static let shortfallExitCode: Int32 = 3

    func run() throws {
        let levelList = levels.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !levelList.isEmpty, levelList == levelList.sorted() else { throw ValidationError("--levels must be ascending counts") }
        let workerList = try Self.workerCounts(workers)
        if workerList != nil && relayURL != nil { throw ValidationError("--workers starts relays: it cannot be used with --relay-url") }
        for count in workerList ?? [] { try validatePorts(workers: count) }
        // Checked before the OnAir run, not after it: a missing yardstick should cost seconds, not the whole run.
        if !pionBin.isEmpty && !FileManager.default.isExecutableFile(atPath: pionBin) {
            throw ValidationError("no Pion relay at \(pionBin) (run from the repository root, build it with "
                + "../shared/refpeer/build.sh .build/refpeer after apt-get install golang-go golang-github-pion-webrtc.v3-dev, "
                + "or pass --pion-bin '' to run OnAir only)")
        }
        try CPUAffinity.pinCurrentProcess(to: benchCore)
        if nice != 0 { SchedulingPriority.raise(nice: nice) }
        if realtime { try SchedulingPriority.makeRoundRobin() }
        var model = VideoModel.default
        model.bitrate = videoBitrate
        var settings = LoadEngine.Settings(room: room, tickNanoseconds: UInt64(tickMs * 1e6), sampleEvery: sampleEvery,
                                           receiverReportInterval: rrInterval, transportCC: transportCC, model: model,
                                           receiveBuffer: 2 << 20)
        settings.tcp = tcp
        let runner = RelayRunner(settings: settings, levels: levelList, window: window, warmup: warmup, connectTimeout: connectTimeout)
        var results: [LevelResult] = []
        var relays: [String] = []

        // The admission check (503 above 85 % media load) is off: this program measures where
        // the relay saturates. `--relay-env ONAIR_MAX_MEDIA_LOAD=0.85` shows it turning viewers away.
        var environment = ["ONAIR_MEDIA_BIND": "127.0.0.1", "ONAIR_HTTP_HOST": "127.0.0.1", "ONAIR_MAX_MEDIA_LOAD": "1"]
        for pair in relayEnv {
            guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("--relay-env wants KEY=VALUE, got \(pair)") }
            environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        if let relayURL {
            let onair = RelayProcess(name: "onair", attachingTo: relayURL, pid: relayPID)
            relays.append("onair")
            results += try runner.run(onair, onAir: true, workers: environment["ONAIR_MEDIA_WORKERS"].flatMap { Int($0) })
        } else {
            // One run per --workers count (named onair-w<W>), or one with the relay's own setting.
            let counts: [Int?] = workerList ?? [nil]
            for count in counts {
                var env = environment
                if let count { env["ONAIR_MEDIA_WORKERS"] = "\(count)" }
                let name = count.map { "onair-w\($0)" } ?? "onair"
                let known = env["ONAIR_MEDIA_WORKERS"] ?? ProcessInfo.processInfo.environment["ONAIR_MEDIA_WORKERS"]
                let onair = try startOnAir(name: name, environment: env, workers: known.flatMap { Int($0) })
                relays.append(name)
                results += try runner.run(onair.process, onAir: true, workers: onair.workers)
                onair.process.stop()
            }
        }

        if !pionBin.isEmpty && !tcp {
            let pion = try RelayProcess(name: "pion", executable: pionBin, arguments: ["-addr", "127.0.0.1:\(pionPort)"],
                                        environment: [:], core: relayCore, httpPort: pionPort, logPath: "/tmp/fanout-bench-pion.log")
            relays.append("pion")
            results += try runner.run(pion)
            pion.stop()
        }

        print("""

            fanout-bench: 1 publisher (H.264-like \(Double(videoBitrate) / 1e6) Mbit/s, \(Int(model.packetsPerSecond.rounded())) video + 50 audio pkt/s), \
            window \(window) s after \(warmup) s warm-up, 1 in \(sampleEvery) packets decrypted for latency; \
            relay on core \(relayCore), load tool on core \(benchCore)

            """)
        print(ResultTable.render(results, levels: levelList, relays: relays))
        if let threads = ThreadTable.section(results) { print(threads) }
        try Self.judgeDelivery(results)
    }

    /// Fails the run (exit ``shortfallExitCode``) with one line per relay and level where some
    /// requested viewer did not receive ``LevelResult/fullVideoShare`` of the video: on
    /// loopback nothing limits a viewer, so a paused or starved one is the relay's doing (or
    /// the machine's, when the tool or the relay ran out of CPU: see their columns).
    static func judgeDelivery(_ results: [LevelResult]) throws {
        let share = Int(LevelResult.fullVideoShare * 100)
        let short = results.filter { $0.viewersShort > 0 }
        for r in results where r.viewersRefused > 0 {
            print("fanout-bench: \(r.relay) @\(r.viewersRequested): \(r.viewersRefused) viewers refused (503, admission limit); "
                + "the \(r.viewersConnected) admitted are judged")
        }
        guard !short.isEmpty else {
            print("\nfanout-bench: every viewer admitted at every level received ≥ \(share) % of the video packets published")
            return
        }
        print("")
        for r in short {
            print("fanout-bench: FAILED: \(r.relay) @\(r.viewersRequested): \(r.viewersShort) of \(r.viewersRequested) viewers "
                + "received < \(share) % of the \(r.publisherVideoPackets) video packets published "
                + "(\(r.viewersRequested - r.viewersRefused - r.viewersConnected) admitted but not connected; lowest \(ResultTable.format(r.lowestVideoPercent, 1)) %, "
                + "median \(ResultTable.format(r.medianVideoPercent, 1)) %)")
        }
        throw ExitCode(shortfallExitCode)
    }
}
