/// RFC 3339 §5.6 `date-time` in UTC with milliseconds (`2025-05-01T12:00:00.123Z`), computed
/// from the epoch without a formatter object (messages are formatted on the fan-out path).
enum RFC3339 {
    static func format(milliseconds: Int64) -> String {
        let (seconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let adjustedSeconds = millis < 0 ? seconds - 1 : seconds
        let fraction = millis < 0 ? millis + 1000 : millis
        let (days0, secondOfDay0) = adjustedSeconds.quotientAndRemainder(dividingBy: 86_400)
        let days = secondOfDay0 < 0 ? days0 - 1 : days0
        let secondOfDay = secondOfDay0 < 0 ? secondOfDay0 + 86_400 : secondOfDay0
        let (year, month, day) = civil(daysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):"
            + "\(pad(secondOfDay % 60, 2)).\(pad(fraction, 3))Z"
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's days_from_civil
    /// inverse: 400-year eras of 146097 days).
    static func civil(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
