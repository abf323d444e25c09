import Glibc

/// The two clocks a sender needs: monotonic for pacing and intervals, wall-clock for RTCP SR
/// NTP timestamps (RFC 3550 §6.4.1) and the test pattern's barcode.
enum Clocks {
    static func monotonic() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func realtime() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
