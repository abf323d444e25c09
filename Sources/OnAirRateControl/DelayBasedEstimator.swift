import OnAirWire

/// The delay-based half of Google Congestion Control (draft-ietf-rmcat-gcc-02 §5), run at
/// the sender on transport-wide feedback as libwebrtc does: packet groups (§5.2), a
/// trendline filter over their delay variation (in place of §5.3's Kalman filter) and the
/// adaptive-threshold over-use detector (§5.4).
///
/// Feed it every acknowledged packet in send order; ``TransportFeedbackAdapter`` does
/// that from feedback. Time comes from the packets themselves (our send times, the
/// receiver's arrival times), never from a clock.
public struct DelayBasedEstimator: Sendable, Hashable {
    public struct Configuration: Sendable, Hashable {
        /// Packets sent within this span of a group's first form one group
        /// (§5.2 burst_time, 5 ms).
        public var burstInterval: Duration = .milliseconds(5)
        /// Groups in the trendline's regression window (libwebrtc: 20).
        public var windowSize = 20
        /// Weight of the previous smoothed delay (libwebrtc: 0.9).
        public var smoothing = 0.9
        /// Scale from slope to modified trend (libwebrtc: 4).
        public var thresholdGain = 4.0
        /// γ at the start, ms (§5.4: 12.5).
        public var initialThreshold = 12.5
        /// K_u, per ms (libwebrtc trendline: 0.0087; §5.4 Kalman: 0.01).
        public var thresholdIncreaseGain = 0.0087
        /// K_d, per ms (libwebrtc trendline: 0.039; §5.4 Kalman: 0.00018).
        public var thresholdDecreaseGain = 0.039
        /// How long the trend must stay above γ before overuse (§5.4 overuse_time_th: 10 ms).
        public var overuseTime: Duration = .milliseconds(10)

        public init() {}
    }

    public let configuration: Configuration
    private var groups: PacketGroupDeltas
    private var trendline: TrendlineFilter
    private var detector: OveruseDetector
    private var deltaCount = 0
    private var trend = 0.0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        groups = PacketGroupDeltas(burstInterval: configuration.burstInterval)
        trendline = TrendlineFilter(windowSize: configuration.windowSize, smoothing: configuration.smoothing)
        detector = OveruseDetector(
            initialThreshold: configuration.initialThreshold, thresholdGain: configuration.thresholdGain,
            increaseGain: configuration.thresholdIncreaseGain, decreaseGain: configuration.thresholdDecreaseGain,
            overuseTime: configuration.overuseTime)
    }

    /// The current verdict; `.normal` until the window has filled.
    public var usage: BandwidthUsage { detector.usage }
    /// The latest modified trend, ms (compared with ``threshold``; for logs).
    public var modifiedTrend: Double { detector.modifiedTrend }
    /// The adaptive threshold γ, ms.
    public var threshold: Double { detector.threshold }
    /// The smoothed accumulated queueing delay, up to a constant (for logs; the trendline
    /// keeps it in ms).
    public var queueingDelay: Duration { .milliseconds(trendline.smoothedDelay) }

    /// Adds one received packet, in send order.
    ///
    /// - Parameters:
    ///   - sendTime: when we sent it, on our monotonic clock.
    ///   - arrivalTime: when it arrived, on the receiver's clock: the span since that
    ///     clock's zero, as transport-cc feedback tells it (reference time and deltas,
    ///     draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1). Not a ``MonoTime``:
    ///     the receiver's clock is not ours, only differences between its readings count.
    /// - Returns: the verdict after this packet.
    @discardableResult
    public mutating func packet(sendTime: MonoTime, arrivalTime: Duration) -> BandwidthUsage {
        guard let delta = groups.add(sendTime: sendTime, arrival: arrivalTime) else { return usage }
        deltaCount = min(deltaCount + 1, 1000)
        if let slope = trendline.update(delayVariation: delta.delayVariation, arrivalTime: delta.arrivalTime) {
            trend = slope
        }
        return detector.detect(trend: trend, sendDelta: delta.sendDelta, deltaCount: deltaCount,
                               arrivalTime: delta.arrivalTime)
    }
}
