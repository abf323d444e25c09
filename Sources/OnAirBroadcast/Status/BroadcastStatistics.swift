/// Running totals of a broadcast, across reconnects, and the latest link figures from RTCP.
struct BroadcastStatistics {
    var videoFrames: UInt64 = 0
    var audioFrames: UInt64 = 0
    var keyframes: UInt64 = 0
    var videoPackets: UInt64 = 0
    var audioPackets: UInt64 = 0
    var bytesSent: UInt64 = 0
    var retransmittedPackets: UInt64 = 0
    /// NACKed packets not resent: the retransmission budget was spent (congestion).
    var retransmissionsDeclined: UInt64 = 0
    var keyframeRequests: UInt64 = 0
    var reconnects = 0
    var skippedFrames: UInt64 = 0
    /// Frames dropped at the encoder input because the pacer was behind (a thin uplink).
    var droppedFrames: UInt64 = 0
    /// Latest receiver view of our video (RFC 3550 §6.4.1 report block): loss 0...1, jitter and RTT in seconds.
    var lossFraction: Double?
    var jitter: Double?
    var roundTripTime: Double?
    /// The transport of the selected ICE pair: "udp", "tcp" (ICE-TCP, RFC 6544), or through
    /// our TURN relay candidate "relay-udp"/"relay-tcp" (the transport to the TURN server).
    var path: String?
    var cumulativeLost: Int64 = 0
    var targetBitrate = 0
    /// Simulcast: the layers sending now ("f h q"); nil without simulcast.
    var layers: String?
    var bitrateReason = "start"
    /// Capture (picture produced) to first packet on the wire, per frame, in nanoseconds.
    var captureToSend = LatencyHistogram()
    /// Monotonic ns when media first flowed.
    var startedAt: UInt64?
}
