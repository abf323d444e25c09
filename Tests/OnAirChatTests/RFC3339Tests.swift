import Foundation
import Testing
@testable import OnAirChat

@Suite("RFC 3339 timestamps")
struct RFC3339Tests {
    @Test("known instants (checked with Python's datetime)", arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (4_102_444_800_000, "2100-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func known(milliseconds: Int64, text: String) {
        #expect(RFC3339.format(milliseconds: milliseconds) == text)
    }

    @Test("agrees with Foundation's ISO 8601 formatter across 400 years")
    func matchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let ms = Int64.random(in: -2_208_988_800_000...10_413_792_000_000, using: &generator)
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
            #expect(RFC3339.format(milliseconds: ms) == expected, "at \(ms) ms")
        }
    }
}
