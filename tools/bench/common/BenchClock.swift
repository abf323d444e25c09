import Glibc

/// The clocks the benchmark programs read, in nanoseconds.
///
/// - Monotonic time schedules work and measures windows and waits.
/// - Realtime is what media stamps carry when they are compared with the kernel's receive
///   timestamps (SO_TIMESTAMPNS is CLOCK_REALTIME); sender and receiver share one machine.
/// - CPU time is what "% of a core" targets are about: the calling thread's, or the whole
///   process's when a library works on threads of its own (x264's slice threads).
public enum BenchClock {
    @inline(__always)
    public static func monotonic() -> UInt64 { read(CLOCK_MONOTONIC) }

    @inline(__always)
    public static func realtime() -> UInt64 { read(CLOCK_REALTIME) }

    /// CPU time of the calling thread only.
    @inline(__always)
    public static func threadCPU() -> UInt64 { read(CLOCK_THREAD_CPUTIME_ID) }

    /// CPU time of every thread of the process.
    @inline(__always)
    public static func processCPU() -> UInt64 { read(CLOCK_PROCESS_CPUTIME_ID) }

    @inline(__always)
    private static func read(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Sleeps until the monotonic clock reaches `deadline` (returns at once if it passed).
    public static func sleep(until deadline: UInt64) {
        guard deadline > monotonic() else { return }
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil)
    }

    /// Threads of this process now (entries of /proc/self/task): tells how many worker
    /// threads a library started.
    public static func threadCount() -> Int {
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }
}
