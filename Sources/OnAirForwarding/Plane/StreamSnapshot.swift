/// The live state of one room, as `GET /api/streams` reports it.
public struct StreamSnapshot: Codable, Sendable, Equatable {
    public var room: String
    public var live: Bool
    public var publisher: PublisherSnapshot?
    public var viewers: Int
    public var peakViewers: Int
    public var codecs: [String]
    /// Packets and bytes received from the publisher.
    public var packetsIn: UInt64
    public var bytesIn: UInt64
    /// Packets and bytes sent to all viewers together.
    public var packetsOut: UInt64
    public var bytesOut: UInt64
    public var keyframes: UInt64
    /// Keyframe requests (PLI) sent to the publisher after coalescing.
    public var keyframeRequests: UInt64
    /// Retransmissions answered from the cache for viewers' NACKs.
    public var retransmissions: UInt64
    /// Publisher packets lost on the way in (RFC 3550 cumulative loss) and its fraction.
    public var packetsLost: Int64
    public var lossFraction: Double
    /// Interarrival jitter of the publisher's video, milliseconds.
    public var jitterMs: Double?
    /// Mean round-trip time to the viewers that reported one, milliseconds.
    public var viewerRTTMs: Double?
    public var startedAt: String?
    public var durationSeconds: Double?
    /// Loss repair on the way in; nil when the publisher offered no NACK.
    public var upstreamRepair: UpstreamRepairSnapshot?
    /// Every video encoding the publisher sends (simulcast layers), forwarded or not.
    public var layers: [LayerSnapshot] = []
    /// Layer switches decided for viewers (bandwidth, cap or a paused layer), up and down, and
    /// seconds of video paused because a viewer's link was too thin, over every viewer so far.
    public var layerSwitchesUp: UInt64 = 0
    public var layerSwitchesDown: UInt64 = 0
    /// Times a viewer's video was paused, and the seconds paused in all and by reason
    /// (``PauseGate/Reason``: loss, undelivered, trial).
    public var videoPauses: UInt64 = 0
    public var videoPausedSeconds: Double = 0
    public var videoPausedSecondsByReason: [String: Double] = [:]
    /// Each connected viewer: the layer it gets and why.
    public var viewerSessions: [ViewerSnapshot] = []

    /// One viewer's video: its layer, its link as the relay estimates it, its switches.
    public struct ViewerSnapshot: Codable, Sendable, Equatable {
        /// The first 8 characters of the session id: enough to find one's own session, not
        /// the id itself (which lets its holder end or change the session).
        public var sessionID: String
        /// The layer it receives (rid, else SSRC); nil while paused or before its first keyframe.
        public var layer: String?
        public var width: Int?
        public var height: Int?
        /// The layer it is switching to, if different.
        public var targetLayer: String?
        /// Video paused: the estimate is below the smallest layer (audio goes on).
        public var paused: Bool
        /// The viewer's cap (`max_height`), if any.
        public var maxHeight: Int?
        public var estimateKbps: Double
        /// The feedback the estimate runs on: transport-cc, remb or rr.
        public var feedback: String
        /// Why the estimate last changed.
        public var estimateReason: String
        public var lossFraction: Double
        public var rttMs: Double?
        public var switchesUp: UInt64
        public var switchesDown: UInt64
        public var probesSucceeded: UInt64
        public var probesFailed: UInt64
        public var paddingBytes: UInt64
        public var pausedSeconds: Double
        /// Times its video was paused, and why it is paused now (nil: it is not).
        public var pauses: UInt64
        public var pauseReason: String?
        public var bytesOut: UInt64
        public var retransmissions: UInt64
        /// NACKed packets answered with padding: gone from the cache, or over the viewer's budget.
        public var retransmissionsGivenUp: UInt64
        public var nacksReceived: UInt64
        /// The media worker it is on (``media.workers``).
        public var worker: Int
        /// "udp" or "tcp" (ICE-TCP) once a pair is selected.
        public var transport: String?
        /// "ipv4" or "ipv6": the family of the viewer's selected address, once there is one.
        public var addressFamily: String?
        /// Over TCP: times its video stopped at a frame because the queue was full, to restart
        /// at a keyframe once there was room.
        public var transportRestarts: UInt64

        enum CodingKeys: String, CodingKey {
            case sessionID = "session", layer, width, height, targetLayer = "target_layer", paused
            case maxHeight = "max_height", estimateKbps = "estimate_kbps", feedback, estimateReason = "estimate_reason"
            case lossFraction = "loss_fraction", rttMs = "rtt_ms", switchesUp = "switches_up", switchesDown = "switches_down"
            case probesSucceeded = "probes_succeeded", probesFailed = "probes_failed", paddingBytes = "padding_bytes"
            case pausedSeconds = "paused_seconds", pauses, pauseReason = "pause_reason", bytesOut = "bytes_out", retransmissions
            case retransmissionsGivenUp = "retransmissions_given_up", nacksReceived = "nacks_received", worker
            case transport, addressFamily = "address_family", transportRestarts = "transport_restarts"
        }
    }

    /// One received video encoding: its rid (RFC 8852), picture size (from its SPS), rates.
    public struct LayerSnapshot: Codable, Sendable, Equatable {
        public var rid: String?
        public var ssrc: UInt32
        public var width: Int?
        public var height: Int?
        public var bitrateKbps: Double
        public var framesPerSecond: Double
        /// Some viewer gets this layer now, and how many do.
        public var forwarded: Bool
        public var viewers: Int
        /// The layer HLS, recording and the stream's figures follow (the biggest picture).
        public var primary: Bool
        /// Sending now (a packet within the last second).
        public var active: Bool

        enum CodingKeys: String, CodingKey {
            case rid, ssrc, width, height, bitrateKbps = "bitrate_kbps", framesPerSecond = "fps", forwarded, viewers, primary, active
        }
    }

    /// RFC 4585 NACK / RFC 4588 RTX towards the publisher, for its current session.
    public struct UpstreamRepairSnapshot: Codable, Sendable, Equatable {
        /// Generic NACK packets sent, and the sequence numbers they asked for (retries included).
        public var nacksSent: UInt64
        public var packetsRequested: UInt64
        /// Asked-for packets that arrived (as RTX or as themselves).
        public var packetsRepaired: UInt64
        /// Packets given up at their deadline (each costs a keyframe request).
        public var packetsUnrepaired: UInt64
        /// Keyframe requests made because loss could not be repaired (before coalescing).
        public var keyframeRequests: UInt64
        /// RTX packets received (repairs and padding probes).
        public var rtxPackets: UInt64
        /// Round trip learnt from NACK to repair, milliseconds.
        public var roundTripMs: Double
        /// Padding packets sent to viewers in place of packets given up.
        public var lossAnnouncements: UInt64

        enum CodingKeys: String, CodingKey {
            case nacksSent = "nacks_sent", packetsRequested = "packets_requested", packetsRepaired = "packets_repaired"
            case packetsUnrepaired = "packets_unrepaired", keyframeRequests = "keyframe_requests", rtxPackets = "rtx_packets"
            case roundTripMs = "round_trip_ms", lossAnnouncements = "loss_announcements"
        }
    }

    public struct PublisherSnapshot: Codable, Sendable, Equatable {
        public var sessionID: String
        public var state: String
        public var address: String?
    }

    package enum CodingKeys: String, CodingKey {
        case room, live, publisher, viewers, peakViewers = "peak_viewers", codecs
        case packetsIn = "packets_in", bytesIn = "bytes_in", packetsOut = "packets_out", bytesOut = "bytes_out"
        case keyframes, keyframeRequests = "keyframe_requests", retransmissions
        case packetsLost = "packets_lost", lossFraction = "loss_fraction", jitterMs = "jitter_ms"
        case viewerRTTMs = "viewer_rtt_ms", startedAt = "started_at", durationSeconds = "duration_seconds"
        case upstreamRepair = "upstream_repair", layers, viewerSessions = "viewer_sessions"
        case layerSwitchesUp = "layer_switches_up", layerSwitchesDown = "layer_switches_down"
        case videoPauses = "video_pauses", videoPausedSeconds = "video_paused_seconds"
        case videoPausedSecondsByReason = "video_paused_seconds_by_reason"
    }
}

extension StreamSnapshot.PublisherSnapshot {
    package enum CodingKeys: String, CodingKey { case sessionID = "session_id", state, address }
}
