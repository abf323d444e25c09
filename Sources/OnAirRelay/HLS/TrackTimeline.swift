import OnAirRTP

/// Puts one RTP stream on the presentation's common timeline. RTP timestamps of audio and
/// video start at unrelated random values on different clocks; RFC 3550 §6.4.1 sender
/// reports tie each to the sender's NTP clock, so
/// `pts = unwrapped - base`, `base = rtp_SR - (ntp_SR - epoch) * clock`,
/// puts both at the same instant `epoch` = 0. Without a sender report the arrival time of the
/// first packet stands in for its NTP time (good to a few milliseconds on a live source).
struct TrackTimeline: Sendable {
    let clockRate: Int64
    private var unwrapper = TimestampUnwrapper()
    private(set) var base: Int64?
    /// The latest sender report: NTP seconds and the unwrapped RTP timestamp it names.
    private(set) var senderReport: (ntpSeconds: Double, rtp: Int64)?
    /// The first packet: arrival (seconds on the relay's clock) and unwrapped timestamp.
    private(set) var firstArrival: (seconds: Double, rtp: Int64)?

    init(clockRate: Int64) { self.clockRate = clockRate }

    mutating func unwrap(_ timestamp: UInt32, arrivalSeconds: Double) -> Int64 {
        let value = unwrapper.unwrap(timestamp)
        if firstArrival == nil { firstArrival = (arrivalSeconds, value) }
        return value
    }

    mutating func noteSenderReport(ntpSeconds: Double, rtpTimestamp: UInt32) {
        senderReport = (ntpSeconds, unwrapper.peek(rtpTimestamp))
    }

    /// Fixes the base so that `epoch` (same clock as the reports, or arrival clock) is 0.
    mutating func start(epochSeconds: Double, useSenderReport: Bool) {
        if useSenderReport, let sr = senderReport {
            base = sr.rtp - Int64(((sr.ntpSeconds - epochSeconds) * Double(clockRate)).rounded())
        } else if let first = firstArrival {
            base = first.rtp - Int64(((first.seconds - epochSeconds) * Double(clockRate)).rounded())
        }
    }

    /// Fixes the base from `reference`'s (a simulcast layer of the same source, already
    /// started): the offset between the two layers' timestamps is read from their latest
    /// sender reports at the same NTP time. Mapping each layer through its own reports
    /// instead carries the jitter of each report (tens of milliseconds, more than a frame),
    /// and the renditions' segments would no longer start at the same picture.
    mutating func start(alignedWith reference: TrackTimeline) -> Bool {
        guard let own = senderReport, let other = reference.senderReport, let referenceBase = reference.base else { return false }
        let ticksBetweenReports = Int64(((own.ntpSeconds - other.ntpSeconds) * Double(clockRate)).rounded())
        base = referenceBase + (own.rtp - other.rtp) - ticksBetweenReports
        return true
    }

    /// The presentation time of an unwrapped timestamp, nil before ``start``.
    func presentationTime(_ unwrapped: Int64) -> Int64? { base.map { unwrapped - $0 } }
}
