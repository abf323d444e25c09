import Glibc

/// The two clocks the benchmark reads. Media stamps carry both; latency compares the realtime
/// stamp with the kernel's receive timestamp (SO_TIMESTAMPNS is CLOCK_REALTIME), which excludes
/// the load tool's own polling delay. Publisher and viewers share one machine, so one clock.
enum Clocks {
    /// CLOCK_MONOTONIC in nanoseconds: scheduling and windows.
    @inline(__always)
    static func monotonic() -> UInt64 { read(CLOCK_MONOTONIC) }

    /// CLOCK_REALTIME in nanoseconds: stamps compared with kernel receive timestamps.
    @inline(__always)
    static func realtime() -> UInt64 { read(CLOCK_REALTIME) }

    @inline(__always)
    private static func read(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Sleeps until the monotonic clock reaches `deadline` (returns at once if it passed).
    static func sleep(until deadline: UInt64) {
        let now = monotonic()
        guard deadline > now else { return }
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil)
    }
}
