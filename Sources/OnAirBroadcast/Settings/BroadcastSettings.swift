/// Everything `broadcast start` needs, resolved from the command line, the environment and
/// `config/broadcast.yaml` (in that order of precedence).
public struct BroadcastSettings: Sendable {
    public var room: String
    /// The WHIP endpoint (RFC 9725 §4.1), e.g. http://127.0.0.1:8080/whip/42.
    public var whipURL: String
    /// Bearer token (RFC 6750), never printed.
    public var token: String?
    public var input: InputChoice
    /// Given on the command line: applies to every input. nil: a file keeps its own size, the
    /// test pattern and a camera use `liveSize`.
    public var size: (width: Int, height: Int)?
    /// Given on the command line: applies to every input (a file's frames are dropped or repeated).
    public var framesPerSecond: Int?
    /// Size and rate of the test pattern and a camera when not given (config file, else 1280x720@30).
    public var liveSize: (width: Int, height: Int) = (1280, 720)
    public var liveFramesPerSecond = 30
    public var videoBitrate: Int
    public var minimumBitrate: Int
    public var maximumBitrate: Int
    /// Frames between IDRs; nil: 2 s worth.
    public var gop: Int?
    public var preset: String
    public var vbvBufferSeconds: Double
    public var audioBitrate: Int
    public var audio: Bool
    /// Stop after this long (seconds).
    public var duration: Double?
    /// New WHIP sessions tried after the media path is lost, before giving up.
    public var reconnectAttempts: Int
    /// Where to write the end-of-run statistics as JSON.
    public var statsJSONPath: String?
    /// Seconds between status log lines when stdout is not a terminal.
    public var logInterval: Double
    /// Where `broadcast stop` finds a running broadcast of this room.
    public var stateDirectory: String
    /// Seconds without a datagram from the endpoint before the session counts as lost.
    public var silenceTimeout: Double = 6
    /// RFC 8853 simulcast: the full picture plus smaller encodings (``SimulcastLadder``).
    public var simulcast = false
    /// Bit/s of the half-size, quarter-size, ... encodings when simulcasting.
    public var simulcastBitrates = [600_000, 150_000]
    /// ICE servers given on the command line or in the config file; empty: the ones the WHIP
    /// endpoint names (RFC 9725 §4.6, asked with OPTIONS before each offer). The first usable
    /// TURN server gives us a relay candidate.
    public var iceServers: [ICEServer] = []
    /// PEM CA certificates trusted besides the system's store for a `turns:` server (RFC 8656
    /// §3.1), e.g. a private deployment's own CA.
    public var iceCAFile: String?
    /// Offer and check only the TURN relay candidate (a browser's iceTransportPolicy "relay").
    public var relayOnly = false

    public init(room: String, whipURL: String, token: String? = nil, input: InputChoice = .testPattern,
                size: (width: Int, height: Int)? = nil, framesPerSecond: Int? = nil, videoBitrate: Int = 2_500_000,
                minimumBitrate: Int = 300_000, maximumBitrate: Int = 4_000_000, gop: Int? = nil, preset: String = "veryfast",
                vbvBufferSeconds: Double = 0.5, audioBitrate: Int = 64_000, audio: Bool = true, duration: Double? = nil,
                reconnectAttempts: Int = 5, statsJSONPath: String? = nil, logInterval: Double = 5,
                stateDirectory: String = BroadcastSettings.defaultStateDirectory) {
        self.room = room
        self.whipURL = whipURL
        self.token = token
        self.input = input
        self.size = size
        self.framesPerSecond = framesPerSecond
        self.videoBitrate = videoBitrate
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = maximumBitrate
        self.gop = gop
        self.preset = preset
        self.vbvBufferSeconds = vbvBufferSeconds
        self.audioBitrate = audioBitrate
        self.audio = audio
        self.duration = duration
        self.reconnectAttempts = reconnectAttempts
        self.statsJSONPath = statsJSONPath
        self.logInterval = logInterval
        self.stateDirectory = stateDirectory
    }

    /// `$ONAIR_BROADCAST_STATE_DIR`, else `$XDG_RUNTIME_DIR/onair` (per-user, cleared at
    /// logout), else /tmp/onair-<uid>.
    public static var defaultStateDirectory: String {
        if let explicit = getenvString("ONAIR_BROADCAST_STATE_DIR"), !explicit.isEmpty { return explicit }
        if let runtime = getenvString("XDG_RUNTIME_DIR"), !runtime.isEmpty { return runtime + "/onair" }
        return "/tmp/onair-\(getuid())"
    }

    /// A base URL becomes `<base>/whip/<room>`; a URL with a path is a full WHIP URL, used as is.
    public static func whipURL(relay: String, room: String) -> String {
        var trimmed = relay
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let schemeEnd = trimmed.range(of: "://") else { return trimmed + "/whip/" + room }
        let afterScheme = trimmed[schemeEnd.upperBound...]
        if afterScheme.contains("/") { return relay }
        return trimmed + "/whip/" + room
    }
}

import Glibc

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
