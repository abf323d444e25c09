import ArgumentParser
import Foundation
import OnAirBroadcast

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Go live: the test pattern (default), --input FILE or --camera DEVICE, until Ctrl-C.")

    @OptionGroup var endpoint: EndpointOptions

    @Option(help: "Media file to send (anything FFmpeg reads).")
    var input: String?

    @Flag(help: "Loop the --input file forever (timestamps continue).")
    var loop = false

    @Option(help: "V4L2 camera device, e.g. /dev/video0.")
    var camera: String?

    @Flag(help: "Send the built-in test pattern (the default without --input/--camera).")
    var testPattern = false

    @Option(help: "Picture size WxH (default: the file's own, else 1280x720).")
    var size: String?

    @Option(help: "Frames per second (default: the file's own, else 30).")
    var fps: Int?

    @Option(help: "Start video bitrate, e.g. 2500k or 2.5M.")
    var videoBitrate: String?

    @Option(help: "Lowest bitrate congestion control may choose.")
    var minBitrate: String?

    @Option(help: "Highest bitrate congestion control may choose.")
    var maxBitrate: String?

    @Option(help: "Frames between keyframes (default: 2 s worth).")
    var gop: Int?

    @Option(help: "x264 preset: ultrafast, superfast, veryfast, faster, fast, medium.")
    var preset: String?

    @Option(help: "Opus bitrate, e.g. 64k.")
    var audioBitrate: String?

    @Flag(help: "Send video only.")
    var noAudio = false

    @Flag(help: "Simulcast (RFC 8853): the full picture plus half and quarter size layers (simulcast_bitrates in the config).")
    var simulcast = false

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(name: .customLong("retries"), help: "Reconnect attempts after the media path is lost (default 5).")
    var retries: Int?

    @Option(help: "Write end-of-run statistics as JSON to this file.")
    var statsJson: String?

    @Option(help: "TURN server for a relay candidate, e.g. turn:host:3478?transport=tcp or turns:host:443 (default: the ones the relay names).")
    var iceServer: String?

    @Option(help: "Username for --ice-server.")
    var iceUsername: String?

    @Option(help: "Credential (password) for --ice-server.")
    var iceCredential: String?

    @Option(name: .customLong("ice-ca-file"),
            help: "CA certificates (PEM) to trust for a turns: server besides the system's, e.g. a private deployment's CA.")
    var iceCAFile: String?

    @Flag(help: "Send only through the TURN relay candidate (like a browser's iceTransportPolicy \"relay\").")
    var relayOnly = false

    func run() async throws {
        let file = try endpoint.configFile()
        let settings = try settings(file)
        SignalHandlers.install()
        let engine = BroadcastEngine(settings: settings, stop: processStopSignal)
        let code = await engine.run()
        if code != 0 { throw ExitCode(code) }
    }

    private func settings(_ file: BroadcastConfigFile) throws -> BroadcastSettings {
        let chosen = [input != nil, camera != nil, testPattern].filter { $0 }.count
        guard chosen <= 1 else { throw Failure.usage("choose one of --input, --camera, --test-pattern") }
        if loop && input == nil { throw Failure.usage("--loop needs --input FILE") }
        var settings = BroadcastSettings(room: endpoint.room, whipURL: endpoint.whipURL(file), token: endpoint.resolvedToken(file))
        if let input {
            guard FileManager.default.fileExists(atPath: input) || input.contains("://") else {
                throw Failure.usage("no such file: \(input) (check the path given to --input)")
            }
            settings.input = .file(path: input, loop: loop)
        } else if let camera {
            settings.input = .camera(device: camera)
        }
        if let text = size ?? file.size {
            guard let parsed = Self.parseSize(text) else {
                throw Failure.usage("--size must be WIDTHxHEIGHT with even numbers, 160x120 to 3840x2160 (got '\(text)')")
            }
            if size != nil { settings.size = parsed } else { settings.liveSize = parsed }
        }
        if let rate = fps ?? file.fps {
            guard (1...120).contains(rate) else { throw Failure.usage("--fps must be 1...120 (got \(rate))") }
            if fps != nil { settings.framesPerSecond = rate } else { settings.liveFramesPerSecond = rate }
        }
        settings.videoBitrate = try bitrate(videoBitrate, "--video-bitrate") ?? file.videoBitrate ?? settings.videoBitrate
        settings.minimumBitrate = try bitrate(minBitrate, "--min-bitrate") ?? file.minBitrate ?? settings.minimumBitrate
        settings.maximumBitrate = try bitrate(maxBitrate, "--max-bitrate") ?? file.maxBitrate ?? settings.maximumBitrate
        settings.maximumBitrate = max(settings.maximumBitrate, settings.videoBitrate)
        settings.minimumBitrate = min(settings.minimumBitrate, settings.videoBitrate)
        if let value = gop ?? file.gop {
            guard value >= 1 && value <= 1200 else { throw Failure.usage("--gop must be 1...1200 frames (got \(value))") }
            settings.gop = value
        }
        settings.preset = preset ?? file.preset ?? settings.preset
        settings.vbvBufferSeconds = file.vbvSeconds ?? settings.vbvBufferSeconds
        settings.audioBitrate = try bitrate(audioBitrate, "--audio-bitrate") ?? file.audioBitrate ?? settings.audioBitrate
        guard (6_000...510_000).contains(settings.audioBitrate) else {
            throw Failure.usage("--audio-bitrate must be 6k...510k (Opus)")
        }
        settings.audio = !noAudio && (file.audio ?? true)
        if let duration {
            guard duration > 0 else { throw Failure.usage("--duration must be positive seconds") }
            settings.duration = duration
        }
        settings.reconnectAttempts = retries ?? file.reconnectAttempts ?? settings.reconnectAttempts
        settings.statsJSONPath = statsJson
        settings.logInterval = file.logInterval ?? settings.logInterval
        settings.simulcast = simulcast || (file.simulcast ?? false)
        settings.simulcastBitrates = file.simulcastBitrates ?? settings.simulcastBitrates
        if let url = iceServer ?? file.iceServer {
            let server = ICEServer(url: url, username: iceUsername ?? file.iceUsername, credential: iceCredential ?? file.iceCredential)
            guard server.turnURI != nil || url.lowercased().hasPrefix("stun:") else {
                throw Failure.usage("--ice-server must be turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT] with --ice-username and "
                                    + "--ice-credential (got '\(url)')")
            }
            settings.iceServers = [server]
        }
        if let path = iceCAFile ?? file.iceCAFile {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw Failure.usage("--ice-ca-file: cannot read \(path) (PEM CA certificates for a turns: server)")
            }
            settings.iceCAFile = path
        }
        settings.relayOnly = relayOnly || (file.relayOnly ?? false)
        return settings
    }

    private func bitrate(_ text: String?, _ option: String) throws -> Int? {
        guard let text else { return nil }
        guard let bits = BitrateText.parse(text) else {
            throw Failure.usage("\(option) must be a bitrate like 2500k or 2.5M (got '\(text)')")
        }
        return bits
    }

    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width % 2 == 0, height % 2 == 0, (160...3840).contains(width), (120...2160).contains(height) else { return nil }
        return (width, height)
    }
}

/// Set from the signal handlers, read by the media loop (an atomic: async-signal-safe).
let processStopSignal = StopSignal()

/// SIGINT/SIGTERM end the broadcast cleanly (DELETE, summary, exit 0); a second Ctrl-C exits at
/// once. Real handlers (sigaction through signal(2)), not a dispatch source: a shell starts
/// background jobs with SIGINT ignored, and a dispatch source would inherit that deafness.
enum SignalHandlers {
    static func install() {
        _ = processStopSignal.isRequested  // initialise the global before a handler can run
        let handler: @convention(c) (Int32) -> Void = { number in
            if processStopSignal.receive(isInterrupt: number == SIGINT) { _exit(130) }
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        // The status line may go to a pipe whose reader ended with the same Ctrl-C (`| tee`):
        // a write then fails with EPIPE instead of killing broadcast before its DELETE.
        signal(SIGPIPE, SIG_IGN)
    }
}
