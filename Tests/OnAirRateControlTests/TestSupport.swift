import OnAirRTP
import OnAirRateControl
import OnAirWire

/// The manual clock's reading `offset` after its zero: `now: at(.seconds(5))`.
func at(_ offset: Duration) -> MonoTime { .zero + offset }

extension MonoTime {
    static func += (time: inout MonoTime, span: Duration) { time = time + span }
}

/// A single-queue bottleneck: packets wait behind each other and leave at `capacity`
/// bits/s, then travel `propagation`. Arrival times are µs on a receiver clock that is
/// unrelated to the sender's (offset by `receiverClockOffset`), as the feedback writes them.
struct BottleneckLink {
    var capacity: Double
    var propagation: Duration = .milliseconds(20)
    var receiverClockOffset: Duration = .seconds(7_777)
    /// ns on the sender's clock: the queue's arithmetic is float.
    private var queueFreeAt: Double = 0

    init(capacity: Double) { self.capacity = capacity }

    /// Arrival time (µs, receiver clock) of a packet of `size` bytes sent at `sendTime`.
    mutating func carry(size: Int, sentAt sendTime: MonoTime) -> Int64 {
        let start = max(Double(sendTime.nanoseconds), queueFreeAt)
        queueFreeAt = start + Double(size * 8) / capacity * 1e9
        return Int64((queueFreeAt + Double(propagation.nanoseconds)) / 1e3) + receiverClockOffset.nanoseconds / 1_000
    }
}

/// The receiving end of transport-cc: notes arrivals by transport-wide sequence number and
/// writes real feedback packets (TransportWideFeedback's own encoder) for what it saw.
struct FeedbackWriter {
    private var base: UInt16?
    private var arrivals: [Int64?] = []
    private var count: UInt8 = 0

    mutating func note(sequence: UInt16, arrival: Int64?) {
        if base == nil { base = sequence }
        arrivals.append(arrival)
    }

    /// A feedback packet for everything noted since the last one, round-tripped through
    /// the wire format; nil if nothing was noted.
    mutating func flush() throws -> TransportWideFeedback? {
        guard let base else { return nil }
        let feedback = try TransportWideFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base, feedbackPacketCount: count,
            arrivalTimesMicroseconds: arrivals)
        self.base = nil
        arrivals.removeAll()
        count &+= 1
        let packets = try RTCPPacket.parseCompound(feedback.serialized())
        guard case .transportWideFeedback(let parsed) = packets.first else { return nil }
        return parsed
    }
}

/// A publisher sending fixed-size packets at a fixed interval over a link, with feedback
/// every `feedbackInterval` into an adapter, as the broadcaster does.
struct PublisherSimulation {
    var adapter = TransportFeedbackAdapter()
    var link: BottleneckLink
    var writer = FeedbackWriter()
    var sequence: UInt16
    var now = at(.seconds(10))
    var feedbackInterval: Duration = .milliseconds(100)
    private var lastFeedback = at(.seconds(10))

    init(capacity: Double, firstSequence: UInt16 = 0) {
        link = BottleneckLink(capacity: capacity)
        sequence = firstSequence
    }

    /// Sends for `duration`, one `size`-byte packet every `interval`; returns the
    /// summaries of the feedback that came back meanwhile, and hands each to `react` as
    /// it comes back, with the time (feedback takes no time to return: the queue is on
    /// the way out).
    mutating func run(
        for duration: Duration, interval: Duration, size: Int = 1200,
        react: (TransportFeedbackSummary, MonoTime) -> Void = { _, _ in }
    ) throws -> [TransportFeedbackSummary] {
        var summaries: [TransportFeedbackSummary] = []
        let end = now + duration
        while now < end {
            adapter.recordSent(sequence: sequence, size: size, now: now)
            writer.note(sequence: sequence, arrival: link.carry(size: size, sentAt: now))
            sequence &+= 1
            now += interval
            if now - lastFeedback >= feedbackInterval, let feedback = try writer.flush() {
                lastFeedback = now
                let summary = adapter.feedback(feedback, now: now)
                summaries.append(summary)
                react(summary, now)
            }
        }
        return summaries
    }
}

