import OnAirWire

/// What one transport-cc feedback packet told ``TransportFeedbackAdapter``: the delay
/// verdict, the acknowledged bitrate and packet counts. Hand it to
/// ``BitrateController/handle(transportFeedback:now:)``.
public struct TransportFeedbackSummary: Sendable, Hashable {
    /// The delay-based verdict after this feedback (draft-ietf-rmcat-gcc-02 §5.4).
    public var usage: BandwidthUsage
    /// Bits per second the receiver got over the last window (§5.5 R_hat), all recorded
    /// packets counted (audio too, if it was recorded); nil until enough has arrived.
    public var acknowledgedBitrate: Int?
    /// Packets reported received and found in the send history.
    public var receivedPackets: Int
    /// Packets reported not received (so far: a later feedback may still report them).
    public var lostPackets: Int
    /// Packets the history no longer holds (too old, never recorded) or already
    /// acknowledged by an earlier feedback.
    public var unknownPackets: Int
    /// From sending the newest packet this feedback acknowledges to receiving the
    /// feedback (zero if the caller's clock went backwards): round-trip time plus the
    /// receiver's feedback interval, an upper bound of the RTT when no RTCP RTT is known.
    public var feedbackDelay: Duration?

    public init(usage: BandwidthUsage, acknowledgedBitrate: Int?, receivedPackets: Int, lostPackets: Int,
                unknownPackets: Int, feedbackDelay: Duration?) {
        self.usage = usage
        self.acknowledgedBitrate = acknowledgedBitrate
        self.receivedPackets = receivedPackets
        self.lostPackets = lostPackets
        self.unknownPackets = unknownPackets
        self.feedbackDelay = feedbackDelay
    }

    /// lost / (received + lost), 0 when the feedback covered none of our packets.
    public var lossFraction: Double {
        let total = receivedPackets + lostPackets
        return total > 0 ? Double(lostPackets) / Double(total) : 0
    }
}
