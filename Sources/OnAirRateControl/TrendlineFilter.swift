import OnAirWire

/// The slope of the one-way delay over recent packet groups: the trendline filter that
/// libwebrtc uses in place of draft-ietf-rmcat-gcc-02 §5.3's Kalman filter for the
/// delay gradient m(i).
///
/// Each inter-group delay variation d(i) is added to an accumulated delay (the queueing
/// delay up to a constant), which is smoothed exponentially; the slope of a least-squares
/// line through the last `windowSize` (arrival time, smoothed delay) points says how
/// many milliseconds of queue build up per millisecond: > 0 growing, < 0 draining.
///
/// The window lives in fixed arrays, so an update does not allocate. Its points are plain
/// ms (a `Duration` converted where it is added): least squares is float math.
struct TrendlineFilter: Sendable, Hashable {
    let windowSize: Int
    /// Weight of the previous smoothed value (libwebrtc: 0.9).
    let smoothing: Double

    private(set) var accumulatedDelay = 0.0
    private(set) var smoothedDelay = 0.0
    private var firstArrival: Duration?
    private var times: [Double]
    private var delays: [Double]
    private var next = 0
    private(set) var count = 0

    init(windowSize: Int, smoothing: Double) {
        self.windowSize = max(windowSize, 2)
        self.smoothing = smoothing
        times = Array(repeating: 0, count: self.windowSize)
        delays = Array(repeating: 0, count: self.windowSize)
    }

    /// Adds one group's delay variation (ms) at its arrival time (receiver's clock).
    /// Returns the slope once the window is full, nil before.
    mutating func update(delayVariation: Double, arrivalTime: Duration) -> Double? {
        let origin = firstArrival ?? arrivalTime
        firstArrival = origin
        accumulatedDelay += delayVariation
        smoothedDelay = smoothing * smoothedDelay + (1 - smoothing) * accumulatedDelay
        times[next] = (arrivalTime - origin).milliseconds
        delays[next] = smoothedDelay
        next = (next + 1) % windowSize
        count = min(count + 1, windowSize)
        return count == windowSize ? slope() : nil
    }

    /// Ordinary least squares slope of delay over time; nil if all times are equal.
    private func slope() -> Double? {
        var meanTime = 0.0
        var meanDelay = 0.0
        for i in 0..<count {
            meanTime += times[i]
            meanDelay += delays[i]
        }
        meanTime /= Double(count)
        meanDelay /= Double(count)
        var numerator = 0.0
        var denominator = 0.0
        for i in 0..<count {
            let dx = times[i] - meanTime
            numerator += dx * (delays[i] - meanDelay)
            denominator += dx * dx
        }
        return denominator > 0 ? numerator / denominator : nil
    }
}
