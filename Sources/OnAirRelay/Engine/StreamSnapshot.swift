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

    /// One received video encoding: its rid (RFC 8852), picture size (from its SPS), rates.
    public struct LayerSnapshot: Codable, Sendable, Equatable {
        public var rid: String?
        public var ssrc: UInt32
        public var width: Int?
        public var height: Int?
        public var bitrateKbps: Double
        public var framesPerSecond: Double
        /// The layer viewers get now.
        public var forwarded: Bool
        /// Sending now (a packet within the last second).
        public var active: Bool

        enum CodingKeys: String, CodingKey {
            case rid, ssrc, width, height, bitrateKbps = "bitrate_kbps", framesPerSecond = "fps", forwarded, active
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

    enum CodingKeys: String, CodingKey {
        case room, live, publisher, viewers, peakViewers = "peak_viewers", codecs
        case packetsIn = "packets_in", bytesIn = "bytes_in", packetsOut = "packets_out", bytesOut = "bytes_out"
        case keyframes, keyframeRequests = "keyframe_requests", retransmissions
        case packetsLost = "packets_lost", lossFraction = "loss_fraction", jitterMs = "jitter_ms"
        case viewerRTTMs = "viewer_rtt_ms", startedAt = "started_at", durationSeconds = "duration_seconds"
        case upstreamRepair = "upstream_repair", layers
    }
}

extension StreamSnapshot.PublisherSnapshot {
    enum CodingKeys: String, CodingKey { case sessionID = "session_id", state, address }
}
