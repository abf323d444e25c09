import OnAirWire
import Testing

@testable import OnAirRTP
import OnAirTestSupport

@Suite("Sequence number and timestamp unwrapping, NTP time")
struct UnwrapperTests {
    @Test func sequenceNumbersAcrossTheWrap() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect([65534, 65535, 0, 1].map { unwrapper.unwrap($0) } == [65534, 65535, 65536, 65537])
    }

    @Test func sequenceNumbersReorderedAcrossTheWrap() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect([65535, 1, 0, 65534, 2].map { unwrapper.unwrap($0) } == [65535, 65537, 65536, 65534, 65538])
    }

    @Test func sequenceNumbersManyWraps() {
        var unwrapper = SequenceNumberUnwrapper()
        var expected: Int64 = 1000
        _ = unwrapper.unwrap(1000)
        for _ in 0..<(5 * 65536 / 1000) {
            expected += 1000
            #expect(unwrapper.unwrap(UInt16(truncatingIfNeeded: expected)) == expected)
        }
        #expect(expected > 4 * 65536)
    }

    @Test func sequenceNumberBeforeTheFirstGoesNegative() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect(unwrapper.unwrap(0) == 0)
        #expect(unwrapper.peek(65535) == -1)
        #expect(unwrapper.last == 0)
        #expect(unwrapper.unwrap(65535) == -1)
        #expect(unwrapper.unwrap(1) == 1)
    }

    @Test func timestampsAcrossTheWrapAndReordered() {
        var unwrapper = TimestampUnwrapper()
        let values: [UInt32] = [0xFFFF_FF00, 0xFFFF_FFF0, 0x10, 0xFFFF_FFF8, 0x3000]
        #expect(values.map { unwrapper.unwrap($0) }
            == [0xFFFF_FF00, 0xFFFF_FFF0, 0x1_0000_0010, 0xFFFF_FFF8, 0x1_0000_3000])
        // A jump of almost half the space forwards is still forwards.
        #expect(unwrapper.unwrap(0x3000 &+ 0x7FFF_FFFF) == 0x1_0000_3000 + 0x7FFF_FFFF)
    }

    @Test func ntpFromUnixTime() {
        #expect(NTPTime(unixNanoseconds: 0) == NTPTime(seconds: 2_208_988_800, fraction: 0))
        let t = NTPTime(unixNanoseconds: 1_500_000_000)
        #expect(t.seconds == 2_208_988_801 && t.fraction == 0x8000_0000)
        #expect(t.unixNanoseconds == 1_500_000_000)
        #expect(NTPTime(unixSeconds: 1.25).fraction == 0x4000_0000)
        #expect(NTPTime(unixSeconds: 1.25).unixSeconds == 1.25)
        // 2036-02-07 06:28:16 UTC wraps into NTP era 1 and still converts back.
        let era1 = NTPTime(unixNanoseconds: (1 << 32 - 2_208_988_800 + 10) * 1_000_000_000)
        #expect(era1.seconds == 10)
        #expect(era1.unixNanoseconds == (1 << 32 - 2_208_988_800 + 10) * 1_000_000_000)
    }

    @Test func ntpRoundTripIsWithinANanosecond() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<1000 {
            let nanos = UInt64.random(in: 0...2_000_000_000_000_000_000, using: &rng)
            let back = NTPTime(unixNanoseconds: nanos).unixNanoseconds
            #expect(back >= nanos - 1 && back <= nanos + 1)
        }
    }

    @Test func compactTimes() {
        // RFC 3550 §6.4.1 example values.
        #expect(NTPTime(rawValue: 0xB705_2000 << 16).compact == 0xB705_2000)
        #expect(NTPTime.compact(.milliseconds(5250)) == 0x0005_4000)
        #expect(NTPTime.duration(compact: 0x0006_2000) == .milliseconds(6125))
        #expect(NTPTime.compact(.seconds(-1)) == 0)
        #expect(NTPTime.compact(.seconds(100_000)) == .max)
    }
}
