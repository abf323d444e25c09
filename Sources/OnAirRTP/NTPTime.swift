/// A 64-bit NTP timestamp (RFC 3550 §4): seconds since 1900-01-01 in the high 32 bits and
/// the fraction of a second in the low 32. Pure: the wallclock is passed in.
public struct NTPTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64

    /// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
    public static let unixEpochOffset: UInt64 = 2_208_988_800

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init(seconds: UInt32, fraction: UInt32) {
        rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// The NTP time of a wallclock instant given as nanoseconds since 1970. Times after
    /// 2036 wrap into NTP era 1, as on the wire.
    public init(unixNanoseconds: UInt64) {
        let seconds = unixNanoseconds / 1_000_000_000 + Self.unixEpochOffset
        let nanos = unixNanoseconds % 1_000_000_000
        // nanos < 2^30, so nanos << 32 < 2^62 cannot overflow; round to nearest.
        let fraction = ((nanos << 32) + 500_000_000) / 1_000_000_000
        rawValue = (seconds << 32) &+ fraction
    }

    /// The NTP time of a wallclock instant given as seconds since 1970.
    public init(unixSeconds: Double) {
        let clamped = max(0, unixSeconds)
        self.init(unixNanoseconds: clamped >= 1.8e10 ? UInt64(1.8e19) : UInt64(clamped * 1e9))
    }

    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

    /// Nanoseconds since 1970. NTP seconds below the Unix epoch offset are read as era 1
    /// (after 2036-02-07), since no RTP peer sends times from before 1970.
    public var unixNanoseconds: UInt64 {
        var seconds = UInt64(self.seconds)
        if seconds < Self.unixEpochOffset { seconds += 1 << 32 }
        let nanos = (UInt64(fraction) * 1_000_000_000 + (1 << 31)) >> 32
        return (seconds - Self.unixEpochOffset) * 1_000_000_000 + nanos
    }

    public var unixSeconds: Double { Double(unixNanoseconds) / 1e9 }

    /// RFC 3550 §6.4.1: the middle 32 bits (16.16 fixed point seconds), as carried in LSR
    /// and used for round-trip time.
    public var compact: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// A duration in the compact 1/65536-second units of DLSR (RFC 3550 §6.4.1),
    /// clamped to 0...UInt32.max (a little over 18 hours).
    public static func compact(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        if seconds >= 65_536 { return .max }
        let nanos = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        // nanos < 2^46, so nanos << 16 < 2^62.
        return UInt32(min(((nanos << 16) + 500_000_000) / 1_000_000_000, UInt64(UInt32.max)))
    }

    /// The duration of `value` compact units (1/65536 s).
    public static func duration(compact value: UInt32) -> Duration {
        .nanoseconds(Int64((UInt64(value) * 1_000_000_000 + (1 << 15)) >> 16))
    }

    public static func < (a: NTPTime, b: NTPTime) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "NTP \(seconds).\(fraction)" }
}
