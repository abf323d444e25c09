import OnAirWire

/// RFC 3550 §6.4.1 reception report block (24 bytes), carried in SR and RR.
///
/// ```
/// |                 SSRC_1 (SSRC of first source)                 |
/// | fraction lost |       cumulative number of packets lost       |
/// |           extended highest sequence number received           |
/// |                      interarrival jitter                      |
/// |                         last SR (LSR)                         |
/// |                   delay since last SR (DLSR)                  |
/// ```
public struct ReportBlock: Sendable, Hashable {
    public static let size = 24
    /// Largest and smallest values of the 24-bit signed cumulative-lost field.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256.
    public var fractionLost: UInt8
    /// 24-bit signed on the wire (negative when duplicates outnumber losses); clamped
    /// to ``cumulativeLostRange`` when written.
    public var cumulativeLost: Int32
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in timestamp units (RFC 3550 §6.4.1, App. A.8).
    public var jitter: UInt32
    /// Middle 32 bits of the NTP time of the last SR received from this source (0: none).
    public var lastSenderReport: UInt32
    /// Delay since that SR was received, in 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0,
        extendedHighestSequenceNumber: UInt32 = 0, jitter: UInt32 = 0,
        lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    public init(parsing reader: inout ByteReader) throws(WireError) {
        try reader.require(Self.size, for: "RTCP report block")
        let start = reader.offset
        self = reader.bytes.withUnsafeBytes { Self(UnsafeRawBufferPointer(rebasing: $0[start..<(start + Self.size)])) }
        try reader.skip(Self.size)
    }

    /// Reads a block from its 24 bytes (the caller checked there are as many).
    @inline(__always)
    public init(_ raw: UnsafeRawBufferPointer) {
        ssrc = raw.uint32(at: 0)
        fractionLost = raw[4]
        let lost = raw.uint32(at: 4) & 0xFF_FFFF
        // Sign-extend the 24-bit two's complement value.
        cumulativeLost = lost & 0x80_0000 != 0 ? Int32(lost) - 0x100_0000 : Int32(lost)
        extendedHighestSequenceNumber = raw.uint32(at: 8)
        jitter = raw.uint32(at: 12)
        lastSenderReport = raw.uint32(at: 16)
        delaySinceLastSenderReport = raw.uint32(at: 20)
    }

    public func serialize(into writer: inout ByteWriter) {
        writer.write(ssrc)
        writer.write(fractionLost)
        let lost = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        writer.writeUInt24(UInt32(bitPattern: lost) & 0xFF_FFFF)
        writer.write(extendedHighestSequenceNumber)
        writer.write(jitter)
        writer.write(lastSenderReport)
        writer.write(delaySinceLastSenderReport)
    }

    /// RFC 3550 §6.4.1 round-trip time seen by the sender of the reported media: the
    /// arrival time of this block minus LSR minus DLSR, in compact NTP units.
    ///
    /// - Parameter arrival: when the report arrived, on the clock that produced the SR.
    /// - Returns: nil when no SR has been received by the reporter (LSR = 0); zero when
    ///   clock error makes the difference negative.
    public func roundTripTime(arrival: NTPTime) -> Duration? {
        guard lastSenderReport != 0 else { return nil }
        let rtt = arrival.compact &- lastSenderReport &- delaySinceLastSenderReport
        // A "negative" result (top bit set) means DLSR overstates the delay.
        guard Int32(bitPattern: rtt) >= 0 else { return .zero }
        return NTPTime.duration(compact: rtt)
    }
}
