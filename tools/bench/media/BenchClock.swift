import Glibc

/// The clocks the media benchmark reads, in nanoseconds.
///
/// CPU time is what the targets are about ("% of a core"); wall time is what a frame
/// waits. x264 runs slice threads inside `encode`, so its CPU is the process clock around the
/// call, not the calling thread's.
enum BenchClock {
    @inline(__always)
    static func monotonic() -> UInt64 { read(CLOCK_MONOTONIC) }

    /// CPU time of the calling thread only.
    @inline(__always)
    static func threadCPU() -> UInt64 { read(CLOCK_THREAD_CPUTIME_ID) }

    /// CPU time of every thread of the process.
    @inline(__always)
    static func processCPU() -> UInt64 { read(CLOCK_PROCESS_CPUTIME_ID) }

    @inline(__always)
    private static func read(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Sleeps until the monotonic clock reaches `deadline` (returns at once if it passed).
    static func sleep(until deadline: UInt64) {
        guard deadline > monotonic() else { return }
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil)
    }

    /// Threads of this process now (entries of /proc/self/task): tells how many worker
    /// threads a library started.
    static func threadCount() -> Int {
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }
}
