import OnAirRTP

/// What the receiver told us since the engine last looked (RTCP, RFC 3550 / RFC 4585 / RFC 5104).
struct FeedbackEvents {
    /// PLI or FIR on the video SSRC: the next frame must be an IDR.
    var keyframeRequested = false
    var keyframeRequests: UInt64 = 0
    /// Report blocks about our streams, with the SSRC they describe and when they arrived (NTP).
    var reportBlocks: [(block: ReportBlock, arrival: NTPTime)] = []
    var rembBitrates: [Int] = []
    var transportFeedback: [TransportWideFeedback] = []

    var hasContent: Bool {
        keyframeRequested || keyframeRequests > 0 || !reportBlocks.isEmpty || !rembBitrates.isEmpty || !transportFeedback.isEmpty
    }
}
