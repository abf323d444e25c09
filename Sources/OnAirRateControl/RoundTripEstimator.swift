import OnAirRTP
import OnAirWire

/// Round-trip time from RTCP reception report blocks (RFC 3550 §6.4.1).
///
/// A receiver echoes the middle 32 bits of our last SR's NTP timestamp (LSR) and how long
/// it held it (DLSR, 1/65536 s). When the report arrives at wall-clock time A, expressed in
/// the same compact NTP format, RTT = A - LSR - DLSR. A must come from the clock that
/// stamped our sender reports, so pass `NTPTime(unixNanoseconds:)` of the wall clock, not
/// a monotonic one.
///
/// The smoothed value is an exponentially weighted mean like TCP's SRTT (RFC 6298 §2,
/// alpha = 1/8), so one delayed report does not swing the status line.
public struct RoundTripEstimator: Sendable, Hashable {
    /// Weight of a new sample in ``smoothed`` (0...1).
    public var smoothingFactor: Double
    /// The most recent sample.
    public private(set) var latest: Duration?
    /// The smoothed round-trip time.
    public private(set) var smoothed: Duration?

    public init(smoothingFactor: Double = 0.125) {
        self.smoothingFactor = min(max(smoothingFactor, 0), 1)
    }

    /// Takes one report block about our stream and the time it arrived.
    ///
    /// - Parameters:
    ///   - reportBlock: a block whose SSRC is one of ours.
    ///   - arrivalNTP: our wall clock when the RR (or SR) carrying it arrived.
    /// - Returns: the round-trip time, or nil when the reporter has not seen an SR yet
    ///   (LSR = 0, RFC 3550 §6.4.1). A negative difference (clock error, DLSR overstated)
    ///   counts as zero.
    @discardableResult
    public mutating func update(reportBlock: ReportBlock, arrivalNTP: NTPTime) -> Duration? {
        guard let rtt = reportBlock.roundTripTime(arrival: arrivalNTP) else { return nil }
        latest = rtt
        if let previous = smoothed {
            smoothed = previous + (rtt - previous) * smoothingFactor
        } else {
            smoothed = rtt
        }
        return rtt
    }
}
