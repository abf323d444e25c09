import OnAirWire

/// Receiver statistics for one incoming RTP stream, as RFC 3550 App. A.1 (sequence
/// number validation), A.3 (expected and lost packets) and A.8 (interarrival jitter)
/// compute them, for the report block we send back about that stream.
///
/// Unlike App. A.1 there is no probation: SRTP has already authenticated the packets,
/// so the first one starts the stream. Arrival times are passed in, in the stream's
/// RTP clock units (e.g. 90 kHz for video), so this stays pure.
public struct RTPStreamStatistics: Sendable {
    /// App. A.1: a forward jump of up to this many is a gap, not a restart.
    public static let maxDropout: UInt16 = 3000
    /// App. A.1: a backward step of up to this many is a late packet, not a restart.
    public static let maxMisorder: UInt16 = 100
    private static let sequenceModulus: Int64 = 1 << 16

    public let ssrc: UInt32

    private var started = false
    private var maxSequence: UInt16 = 0
    /// Shifted count of sequence number wraps (App. A.1 `cycles`).
    private var cycles: Int64 = 0
    private var baseSequence: Int64 = 0
    /// The sequence number that would confirm a restart after a big jump.
    private var badSequence: Int64 = 1 << 16 + 1
    /// Packets counted as received since the (re)start.
    public private(set) var received: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    /// Relative transit time of the previous packet (arrival − RTP timestamp).
    private var transit: UInt32? = nil
    /// Jitter scaled by 16, as the integer form of App. A.8 keeps it.
    private var scaledJitter: Int64 = 0
    /// The last SR from this source: its compact NTP time and when it arrived.
    private var lastSenderReport: (compact: UInt32, arrival: MonoTime)? = nil

    public init(ssrc: UInt32) { self.ssrc = ssrc }

    /// Counts a packet. - Returns: false if App. A.1 rejects it as a big jump (the first
    /// packet of a possible restart); such packets count neither as received nor for jitter.
    @discardableResult
    public mutating func record(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrivalTime: UInt32) -> Bool {
        guard updateSequence(sequenceNumber) else { return false }
        updateJitter(rtpTimestamp: rtpTimestamp, arrivalTime: arrivalTime)
        return true
    }

    /// Counts a retransmitted packet (RFC 4588) as received without a jitter sample: it
    /// left the sender a round trip after its RTP timestamp says.
    public mutating func recordRetransmission(sequenceNumber: UInt16) {
        _ = updateSequence(sequenceNumber)
    }

    private mutating func restart(at sequenceNumber: UInt16) {
        started = true
        baseSequence = Int64(sequenceNumber)
        maxSequence = sequenceNumber
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        received = 0
        receivedPrior = 0
        expectedPrior = 0
    }

    /// RFC 3550 App. A.1 `update_seq`, without probation.
    private mutating func updateSequence(_ sequenceNumber: UInt16) -> Bool {
        guard started else {
            restart(at: sequenceNumber)
            received = 1
            return true
        }
        let delta = sequenceNumber &- maxSequence
        if delta < Self.maxDropout {
            if sequenceNumber < maxSequence { cycles += Self.sequenceModulus }
            maxSequence = sequenceNumber
        } else if delta <= UInt16.max - Self.maxMisorder + 1 {
            // A very large jump: a restart only if the next packet follows this one.
            if Int64(sequenceNumber) == badSequence {
                restart(at: sequenceNumber)
            } else {
                badSequence = Int64(sequenceNumber &+ 1)
                return false
            }
        }
        // else: a duplicate or a packet that arrived late; counted, max unchanged.
        received += 1
        return true
    }

    /// RFC 3550 App. A.8, integer form: J += |D| − J/16 with J kept scaled by 16.
    private mutating func updateJitter(rtpTimestamp: UInt32, arrivalTime: UInt32) {
        let newTransit = arrivalTime &- rtpTimestamp
        defer { transit = newTransit }
        guard let previous = transit else { return }
        // Wrapping difference read as signed, so timestamp wraps do not count as jumps.
        let d = abs(Int64(Int32(bitPattern: newTransit &- previous)))
        scaledJitter += d - ((scaledJitter + 8) >> 4)
    }

    /// App. A.1 extended highest sequence number: wraps in the high 16 bits.
    public var extendedHighestSequenceNumber: UInt32 {
        UInt32(truncatingIfNeeded: cycles + Int64(maxSequence))
    }

    /// App. A.3: packets expected since the (re)start.
    public var expected: Int64 { started ? cycles + Int64(maxSequence) - baseSequence + 1 : 0 }

    /// App. A.3: expected minus received; negative when duplicates arrived.
    public var cumulativeLost: Int64 { expected - received }

    /// Interarrival jitter in RTP timestamp units (App. A.8: J >> 4).
    public var jitter: UInt32 { UInt32(truncatingIfNeeded: scaledJitter >> 4) }

    /// Remembers an SR from this source, for LSR and DLSR in the next report block.
    public mutating func recordSenderReport(ntpTime: NTPTime, arrival: MonoTime) {
        lastSenderReport = (ntpTime.compact, arrival)
    }

    /// The report block about this stream (RFC 3550 §6.4.1), with the fraction lost
    /// since the previous call (App. A.3); nil before the first packet.
    public mutating func makeReportBlock(now: MonoTime) -> ReportBlock? {
        guard started else { return nil }
        let expectedNow = expected
        let expectedInterval = expectedNow - expectedPrior
        expectedPrior = expectedNow
        let receivedInterval = received - receivedPrior
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval == 0 || lostInterval <= 0
            ? 0 : UInt8(truncatingIfNeeded: min((lostInterval << 8) / expectedInterval, 255))

        let lost = min(max(cumulativeLost, Int64(ReportBlock.cumulativeLostRange.lowerBound)),
                       Int64(ReportBlock.cumulativeLostRange.upperBound))
        var block = ReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(lost),
            extendedHighestSequenceNumber: extendedHighestSequenceNumber, jitter: jitter)
        if let sr = lastSenderReport {
            block.lastSenderReport = sr.compact
            block.delaySinceLastSenderReport = NTPTime.compact(now - sr.arrival)
        }
        return block
    }
}
