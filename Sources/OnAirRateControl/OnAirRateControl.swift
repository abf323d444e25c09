// OnAirRateControl: the publisher's congestion control and link quality, pure.
//
// Inputs are parsed RTCP (OnAirRTP): receiver report blocks (RFC 3550 §6.4), REMB
// (draft-alvestrand-rmcat-remb-03) and transport-wide feedback
// (draft-holmer-rmcat-transport-wide-cc-extensions-01). The output is a target bitrate for
// the video encoder (draft-ietf-rmcat-gcc-02 loss- and delay-based control) and a 1-5 link
// quality score.
//
// Time: there is no clock in this module. Every call that needs the time takes
// `now: UInt64`, nanoseconds on the caller's monotonic clock (e.g.
// `DispatchTime.now().uptimeNanoseconds` or `clock_gettime(CLOCK_MONOTONIC)`); only
// differences between values matter. Durations in configurations are nanoseconds too.
// The exceptions are the wall-clock NTP times of RTCP round-trip measurement and the
// receiver's arrival times in transport-cc feedback, which come in their wire units.

/// Nanosecond arithmetic on caller-supplied monotonic times.
enum Nanoseconds {
    static let perMillisecond: UInt64 = 1_000_000
    static let perSecond: UInt64 = 1_000_000_000

    /// `later - earlier`, or zero if the caller's clock went backwards: a time that runs
    /// backwards must not wrap into an "eternity" that would unlock every rate limit.
    @inline(__always)
    static func elapsed(from earlier: UInt64, to later: UInt64) -> UInt64 {
        later >= earlier ? later - earlier : 0
    }

    @inline(__always)
    static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }
}
