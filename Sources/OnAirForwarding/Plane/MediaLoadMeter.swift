import Glibc
import OnAirWire

/// How busy the media event loop is: the share of wall time its thread spent on the CPU over
/// the last measuring period. The loop does all forwarding on one thread, so this is the
/// figure that says whether another viewer still fits. New viewers are refused (503) above
/// `limits.max_media_load`, so that a saturated relay sheds new load at the door instead of
/// letting every viewer's packets queue until consent checks time out.
///
/// A reading is a second old at worst, and viewers arrive in bursts (a page shared, an event
/// starting), so admission looks at a projection: the last reading plus what the viewers
/// admitted since then will add, each costing what an average viewer cost in that reading.
package struct MediaLoadMeter {
    /// The period a reading covers.
    package static let period: Duration = .seconds(1)

    /// The last reading, 0...1 (0 until a first full period).
    package private(set) var load = 0.0
    /// The last reading divided by the viewers there were: an upper bound of one viewer's
    /// share, since the reading also holds the publishers' and timers' work.
    package private(set) var loadPerViewer = 0.0
    /// Viewers admitted since the last reading.
    package private(set) var admittedSinceReading = 0
    private var periodStart: (wall: MonoTime, cpuNanoseconds: UInt64)?

    package init() {}

    /// The last reading plus the expected cost of the viewers admitted since.
    package var projectedLoad: Double { load + Double(admittedSinceReading) * loadPerViewer }

    /// Notes the loop thread's CPU time at `now`; closes the period once it is long enough,
    /// and only then asks how many viewers are being served.
    package mutating func sample(cpuNanoseconds: UInt64, viewers: @autoclosure () -> Int, at now: MonoTime) {
        guard let start = periodStart else {
            periodStart = (now, cpuNanoseconds)
            return
        }
        let wall = now - start.wall
        guard wall >= Self.period else { return }
        let busy = Double(cpuNanoseconds &- start.cpuNanoseconds) / 1e9
        load = min(1, max(0, busy / wall.seconds))
        let viewers = viewers()
        loadPerViewer = viewers > 0 ? load / Double(viewers) : 0
        admittedSinceReading = 0
        periodStart = (now, cpuNanoseconds)
    }

    /// Whether one more viewer keeps the projected load below `limit`; counts it if so.
    package mutating func admitViewer(limit: Double) -> Bool {
        // 1 means no check (documented): the projection can exceed 1, a reading cannot.
        guard limit >= 1 || projectedLoad < limit else { return false }
        admittedSinceReading += 1
        return true
    }

    /// CPU time of the calling thread (the media loop's, when called from it).
    package static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
