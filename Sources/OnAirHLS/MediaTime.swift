/// Integer conversions between `Duration`, media ticks of a timescale, and the
/// decimal-floating-point text of playlists (RFC 8216bis §4.2), without floating point
/// so that durations never drift or print as 1.9999999.
enum MediaTime {
    /// `duration` in ticks of `timescale`, rounded down.
    static func ticks(_ duration: Duration, timescale: Int64) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = attoseconds / 1_000_000_000
        return seconds * timescale + nanoseconds * timescale / 1_000_000_000
    }

    /// `ticks` of `timescale` as a `Duration`, exact to the nanosecond.
    static func duration(ticks: Int64, timescale: Int64) -> Duration {
        let whole = ticks / timescale
        let rest = ticks % timescale
        return .seconds(whole) + .nanoseconds(rest * 1_000_000_000 / timescale)
    }

    /// `ticks` converted from one timescale to another, rounded down.
    static func rescale(_ ticks: Int64, from: Int64, to: Int64) -> Int64 {
        let whole = ticks / from
        let rest = ticks % from
        return whole * to + rest * to / from
    }

    /// Whole microseconds of a duration, rounded to nearest.
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + (attoseconds + 500_000_000_000) / 1_000_000_000_000
    }

    /// A duration as decimal seconds with `fractionDigits` digits (at most 6), rounded
    /// half up; `trimmed` drops trailing zeros but keeps at least one digit after the point.
    /// `roundingUp`: for minimums (PART-HOLD-BACK), which must not come out below the value.
    static func decimalSeconds(_ duration: Duration, fractionDigits: Int, trimmed: Bool = false, roundingUp: Bool = false) -> String {
        precondition((0...6).contains(fractionDigits))
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let micro = max(0, microseconds(duration))
        let divisor = 1_000_000 / scale
        let units = (micro + (roundingUp ? divisor - 1 : divisor / 2)) / divisor
        let whole = String(units / scale)
        guard fractionDigits > 0 else { return whole }
        var fraction = String(units % scale)
        fraction = String(repeating: "0", count: fractionDigits - fraction.count) + fraction
        if trimmed {
            while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        }
        return whole + "." + fraction
    }
}
