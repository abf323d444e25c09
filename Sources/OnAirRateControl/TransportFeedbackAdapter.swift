import OnAirRTP
import OnAirWire

/// The sender's side of transport-wide congestion control
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): remembers when each packet left
/// and how big it was, matches feedback to it, and runs the delay-based estimator
/// (draft-ietf-rmcat-gcc-02 §5) and the acknowledged-bitrate measurement (§5.5) on the
/// result.
///
/// Call ``recordSent(sequence:size:now:)`` for every packet that carries the
/// transport-wide sequence number extension (audio and video alike: the numbers are
/// shared), with the size on the wire. It stores into a fixed ring and never allocates.
///
/// Pacing matters: a keyframe sent as one burst really does queue at a bottleneck, and the
/// estimator reads that queue as overuse. In simulation (1 Mbit/s of 30 fps video, a 10×
/// keyframe every 2 s, feedback every 100 ms) a 5 Mbit/s link stays normal, but over a
/// 3 Mbit/s link 12 of 225 feedbacks say overuse, one per keyframe. Sending packets at
/// 2.5 Mbit/s (libwebrtc's pacing factor 2.5) instead of back to back brings that to 1.
public struct TransportFeedbackAdapter: Sendable {
    public private(set) var estimator: DelayBasedEstimator
    private var history: SentPacketHistory
    private var acknowledged: AcknowledgedBitrateEstimator
    private var sequences = SequenceNumberUnwrapper()
    /// Extended reference time of the last feedback, 64 ms units (the field is 24 bits).
    private var lastReferenceTime: Int64?

    /// - Parameters:
    ///   - historyCapacity: packets remembered (rounded up to a power of two); feedback
    ///     about older packets is ignored. 8192 is seconds of video at any sane bitrate.
    ///   - acknowledgedWindow: the acknowledged-bitrate window (§5.5: 0.5-1 s).
    ///   - estimator: delay-based estimator tuning.
    public init(historyCapacity: Int = 8192, acknowledgedWindow: Duration = .milliseconds(500),
                estimator: DelayBasedEstimator.Configuration = .init()) {
        history = SentPacketHistory(capacity: historyCapacity)
        acknowledged = AcknowledgedBitrateEstimator(window: acknowledgedWindow, capacity: history.capacity)
        self.estimator = DelayBasedEstimator(configuration: estimator)
    }

    /// The current delay verdict.
    public var usage: BandwidthUsage { estimator.usage }
    /// The latest acknowledged bitrate, bits/s.
    public var acknowledgedBitrate: Int? { acknowledged.bitrate }

    /// Records a packet as it is sent.
    ///
    /// - Parameters:
    ///   - sequence: its transport-wide sequence number.
    ///   - size: bytes on the wire (RTP header, payload, SRTP tag), for the bitrate.
    ///   - now: when it left.
    public mutating func recordSent(sequence: UInt16, size: Int, now: MonoTime) {
        history.record(sequence: sequences.unwrap(sequence), sendTime: now, size: size)
    }

    /// Takes one feedback packet: matches its packets to what was sent, feeds the received
    /// ones to the delay-based estimator in send order and measures the acknowledged
    /// bitrate.
    ///
    /// - Parameters:
    ///   - feedback: RTPFB FMT 15 about our media (parsed, or read in place).
    ///   - now: when it arrived (for ``TransportFeedbackSummary/feedbackDelay``).
    public mutating func feedback(_ feedback: some TransportFeedbackPackets, now: MonoTime) -> TransportFeedbackSummary {
        // The receiver's clock: the span since its zero, from the wire's 64 ms and 250 µs units.
        var arrival = Duration.microseconds(
            unwrapReferenceTime(feedback.referenceTime) * TransportWideFeedback.referenceTimeMicroseconds)
        var received = 0
        var lost = 0
        var unknown = 0
        var newestSendTime: MonoTime?
        let base = feedback.baseSequenceNumber
        feedback.forEachPacket { offset, delta in
            let sequence = sequences.peek(base &+ UInt16(truncatingIfNeeded: offset))
            guard let delta else {
                if let entry = history.entry(sequence), !entry.acknowledged { lost += 1 } else { unknown += 1 }
                return
            }
            // Deltas chain from one received packet to the next whether or not we know it.
            arrival += .microseconds(Int64(delta) * TransportWideFeedback.deltaMicroseconds)
            guard let sent = history.acknowledge(sequence) else {
                unknown += 1
                return
            }
            received += 1
            newestSendTime = max(newestSendTime ?? sent.sendTime, sent.sendTime)
            estimator.packet(sendTime: sent.sendTime, arrivalTime: arrival)
            acknowledged.add(arrival: arrival, bytes: Int(sent.size))
        }
        return TransportFeedbackSummary(
            usage: estimator.usage, acknowledgedBitrate: acknowledged.bitrate, receivedPackets: received,
            lostPackets: lost, unknownPackets: unknown,
            feedbackDelay: newestSendTime.map { now >= $0 ? now - $0 : .zero })
    }

    /// The 24-bit reference time wraps every 2^24 × 64 ms (about 12 days); extend it
    /// so arrival times keep increasing across the wrap.
    private mutating func unwrapReferenceTime(_ wire: Int32) -> Int64 {
        let value = Int64(wire) & 0xFF_FFFF
        guard let last = lastReferenceTime else {
            lastReferenceTime = value
            return value
        }
        var step = (value - last) & 0xFF_FFFF
        if step >= 0x80_0000 { step -= 0x100_0000 }
        let extended = last + step
        lastReferenceTime = extended
        return extended
    }
}
