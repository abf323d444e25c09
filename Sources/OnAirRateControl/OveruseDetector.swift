import OnAirWire

/// Compares the delay trend with an adaptive threshold and decides overuse, normal or
/// underuse (draft-ietf-rmcat-gcc-02 §5.4), as libwebrtc does for its trendline.
///
/// The trend is scaled to a "modified trend" m = min(groups, 60) × slope × gain, so that a
/// slope seen over few groups counts for less. Then:
/// - m > γ for more than 10 ms (and at least two groups) while still rising: overuse;
/// - m < -γ: underuse; otherwise normal.
///
/// The threshold γ follows |m| (§5.4): γ += Δt × K × (|m| - γ), with K = K_u when |m| > γ
/// and K_d otherwise, Δt capped at 100 ms, γ kept in 6...600 ms, and no update when |m|
/// exceeds γ by more than 15 ms (a sudden spike must not drag the threshold up). A fixed
/// threshold would either starve against a concurrent TCP flow (too low) or never react
/// (too high); the adaptation keeps it just above the noise of the path.
///
/// K_u and K_d: §5.4 gives 0.01 and 0.00018, tuned for the draft's Kalman estimate; the
/// defaults here are libwebrtc's 0.0087 and 0.039, tuned for the trendline's output.
///
/// Inside, times are plain ms (`Double`): γ, its gains and the trend are in ms, and the
/// adaptation is float math; the spans that come in are converted where they arrive.
struct OveruseDetector: Sendable, Hashable {
    var thresholdGain: Double
    var increaseGain: Double
    var decreaseGain: Double
    /// How long the trend must stay above γ before overuse, ms.
    var overuseTime: Double
    static let maxCountedDeltas = 60
    static let maxAdaptOffset = 15.0
    static let thresholdRange = 6.0...600.0

    /// γ in milliseconds.
    private(set) var threshold: Double
    private(set) var modifiedTrend = 0.0
    private(set) var usage = BandwidthUsage.normal
    private var timeOverusing: Double?
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastUpdate: Double?

    init(initialThreshold: Double, thresholdGain: Double, increaseGain: Double, decreaseGain: Double,
         overuseTime: Duration) {
        threshold = initialThreshold
        self.thresholdGain = thresholdGain
        self.increaseGain = increaseGain
        self.decreaseGain = decreaseGain
        self.overuseTime = overuseTime.milliseconds
    }

    /// - Parameters:
    ///   - trend: the trendline slope (ms of delay per ms).
    ///   - sendDelta: the inter-departure time of the latest group pair.
    ///   - deltaCount: how many group deltas have been seen.
    ///   - arrivalTime: arrival of the latest group, on the receiver's clock.
    mutating func detect(trend: Double, sendDelta: Duration, deltaCount: Int, arrivalTime: Duration) -> BandwidthUsage {
        guard deltaCount >= 2 else { return usage }
        let sendDelta = sendDelta.milliseconds
        let time = arrivalTime.milliseconds
        let modified = Double(min(deltaCount, Self.maxCountedDeltas)) * trend * thresholdGain
        modifiedTrend = modified
        if modified > threshold {
            let overusing = timeOverusing.map { $0 + sendDelta } ?? sendDelta / 2
            timeOverusing = overusing
            overuseCount += 1
            // Rising, not merely high: a queue that already stopped growing needs no cut.
            if overusing > overuseTime && overuseCount > 1 && trend >= previousTrend {
                timeOverusing = 0
                overuseCount = 0
                usage = .overuse
            }
        } else if modified < -threshold {
            timeOverusing = nil
            overuseCount = 0
            usage = .underuse
        } else {
            timeOverusing = nil
            overuseCount = 0
            usage = .normal
        }
        previousTrend = trend
        adaptThreshold(modified, time: time)
        return usage
    }

    private mutating func adaptThreshold(_ modified: Double, time: Double) {
        let last = lastUpdate ?? time
        lastUpdate = time
        let magnitude = abs(modified)
        guard magnitude <= threshold + Self.maxAdaptOffset else { return }
        let gain = magnitude < threshold ? decreaseGain : increaseGain
        let elapsed = min(max(time - last, 0), 100)
        threshold += gain * (magnitude - threshold) * elapsed
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
