/// A point on a monotonic clock in nanoseconds. Sans-I/O state machines take `now: MonoTime`
/// as an argument so that tests drive them with a manual clock; the I/O layer passes
/// ``MonoTime/now()``.
public struct MonoTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func milliseconds(_ ms: UInt64) -> MonoTime { MonoTime(nanoseconds: ms * 1_000_000) }
    public static func seconds(_ s: Double) -> MonoTime { MonoTime(nanoseconds: UInt64(s * 1e9)) }

    public static let zero = MonoTime(nanoseconds: 0)

    /// The current time of the process-wide monotonic clock.
    public static func now() -> MonoTime {
        let d = ContinuousClock.now - baseline
        let (seconds, attoseconds) = d.components
        return MonoTime(nanoseconds: UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }

    private static let baseline = ContinuousClock.now - .seconds(1)

    public static func < (a: MonoTime, b: MonoTime) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: MonoTime, d: Duration) -> MonoTime {
        let (s, atto) = d.components
        let ns = Int64(s) * 1_000_000_000 + atto / 1_000_000_000
        return MonoTime(nanoseconds: ns >= 0 ? a.nanoseconds &+ UInt64(ns) : a.nanoseconds &- UInt64(-ns))
    }

    /// The duration from `b` to `a` (negative if `a` is earlier).
    public static func - (a: MonoTime, b: MonoTime) -> Duration {
        .nanoseconds(Int64(bitPattern: a.nanoseconds &- b.nanoseconds))
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var milliseconds: UInt64 { nanoseconds / 1_000_000 }

    public var description: String { "\(seconds)s" }
}
