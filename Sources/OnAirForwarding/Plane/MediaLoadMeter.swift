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
/// admitted since then will add, each costing what a viewer cost in that reading. That cost
/// is the fan-out's time (every packet rewritten, protected and sent per viewer) per viewer,
/// with ``perViewerWorkOutsideFanOut`` on top for its feedback, repairs and timers; not the
/// whole reading per viewer, which with few viewers is mostly the publishers' and timers'
/// work: 200 viewers joining a relay that had one were refused after 17 at 8 % CPU.
package struct MediaLoadMeter {
    /// The period a reading covers.
    package static let period: Duration = .seconds(1)

    /// The last reading, 0...1 (0 until a first full period).
    package private(set) var load = 0.0
    /// One viewer's share of the last reading: the fan-out's share per viewer, times
    /// ``perViewerWorkOutsideFanOut``, and never more than the reading over the viewers.
    package private(set) var loadPerViewer = 0.0
    /// The share of the last period the fan-out took.
    package private(set) var fanOutLoad = 0.0
    /// Viewers admitted since the last reading.
    package private(set) var admittedSinceReading = 0
    private var periodStart: (wall: MonoTime, cpuNanoseconds: UInt64)?
    private var fanOutNanoseconds: UInt64 = 0

    /// A viewer's work beyond the fan-out (its RTCP, NACK answers, probe padding, timers), as
    /// a share of its fan-out work: at 200 viewers of one 2.5 Mbit/s stream the fan-out was
    /// the bulk of the loop's time (tools/bench/fanout).
    package static let perViewerWorkOutsideFanOut = 1.5

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
        fanOutLoad = min(1, Double(fanOutNanoseconds) / 1e9 / wall.seconds)
        fanOutNanoseconds = 0
        let viewers = viewers()
        loadPerViewer = viewers > 0 ? min(load, fanOutLoad * Self.perViewerWorkOutsideFanOut) / Double(viewers) : 0
        admittedSinceReading = 0
        periodStart = (now, cpuNanoseconds)
    }

    /// Counts the time one fan-out (a read batch's packets to every viewer, and their send) took.
    @inline(__always)
    package mutating func noteFanOut(from start: MonoTime, to end: MonoTime) {
        if end > start { fanOutNanoseconds &+= end.nanoseconds &- start.nanoseconds }
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
