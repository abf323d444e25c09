/// RFC 8216bis §4.4.4.6 EXT-X-PROGRAM-DATE-TIME value: an ISO 8601 / RFC 3339 date-time
/// with milliseconds in UTC, e.g. "2025-03-01T12:00:05.250Z".
public enum ProgramDateTime {
    /// Formats milliseconds since the Unix epoch (1970-01-01T00:00:00Z), proleptic
    /// Gregorian calendar, no leap seconds (as POSIX time counts).
    public static func format(unixMilliseconds: Int64) -> String {
        let days = floorDivide(unixMilliseconds, 86_400_000)
        let millisecondOfDay = unixMilliseconds - days * 86_400_000
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let seconds = millisecondOfDay / 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
            + "." + pad(millisecondOfDay % 1000, 3) + "Z"
    }

    /// Year, month, day of a day count from 1970-01-01, by the era arithmetic of
    /// 400-year Gregorian cycles (146097 days), with years starting in March so that the
    /// leap day falls last.
    static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
