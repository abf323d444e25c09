import Glibc
import OnAirWire

/// How busy the media event loop is: the share of wall time its thread spent on the CPU over
/// the last measuring period. The loop does all forwarding on one thread, so this is the
/// figure that says whether another viewer still fits. New viewers are refused (503) above
/// `limits.max_media_load`, so that a saturated relay sheds new load at the door instead of
/// letting every viewer's packets queue until consent checks time out.
struct MediaLoadMeter {
    /// The period a reading covers.
    static let period: Duration = .seconds(1)

    /// The last reading, 0...1 (0 until a first full period).
    private(set) var load = 0.0
    private var periodStart: (wall: MonoTime, cpuNanoseconds: UInt64)?

    /// Notes the loop thread's CPU time at `now`; closes the period once it is long enough.
    mutating func sample(cpuNanoseconds: UInt64, at now: MonoTime) {
        guard let start = periodStart else {
            periodStart = (now, cpuNanoseconds)
            return
        }
        let wall = now - start.wall
        guard wall >= Self.period else { return }
        let busy = Double(cpuNanoseconds &- start.cpuNanoseconds) / 1e9
        load = min(1, max(0, busy / wall.seconds))
        periodStart = (now, cpuNanoseconds)
    }

    /// CPU time of the calling thread (the media loop's, when called from it).
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
