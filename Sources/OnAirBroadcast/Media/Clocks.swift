import Glibc
import OnAirWire

/// The two clocks a sender needs: monotonic for pacing and intervals, wall-clock for RTCP SR
/// NTP timestamps (RFC 3550 §6.4.1) and the test pattern's barcode.
enum Clocks {
    /// Nanoseconds on ``MonoTime``'s clock: the same one the peer session's timers use, so
    /// deadlines from both compare directly. (A raw CLOCK_MONOTONIC here once made every session
    /// timer look overdue and the media loop spin.)
    static func monotonic() -> UInt64 {
        MonoTime.now().nanoseconds
    }

    static func realtime() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
