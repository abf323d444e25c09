import OnAirRTP

/// One RTP source's clock as its latest sender report states it (RFC 3550 §6.4.1): the NTP
/// wallclock instant that corresponds to an RTP timestamp. Simulcast layers start their
/// timestamps at unrelated random bases but share the sender's wallclock, so two layers'
/// reports say which timestamp of one is which of the other.
public struct SenderClock: Sendable, Hashable {
    public let wallclockNanoseconds: UInt64
    public let rtpTimestamp: UInt32
    public let clockRate: UInt32

    public init(ntpTime: NTPTime, rtpTimestamp: UInt32, clockRate: UInt32) {
        wallclockNanoseconds = ntpTime.unixNanoseconds
        self.rtpTimestamp = rtpTimestamp
        self.clockRate = max(clockRate, 1)
    }

    /// The sender's wallclock instant of `timestamp`, nanoseconds since 1970; valid for
    /// timestamps within half the 32-bit range of the report's (hours at 90 kHz).
    public func wallclock(of timestamp: UInt32) -> Int64 {
        let ticks = Int64(Int32(bitPattern: timestamp &- rtpTimestamp))
        return Int64(clamping: wallclockNanoseconds) + ticks * 1_000_000_000 / Int64(clockRate)
    }
}
