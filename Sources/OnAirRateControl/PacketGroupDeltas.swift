import OnAirWire

/// Gathers packets into groups and yields the delay variation between consecutive groups
/// (draft-ietf-rmcat-gcc-02 §5.2).
///
/// A group is the packets sent within `burstInterval` (5 ms) of its first packet: a video
/// frame sent in one burst is one group, so the pacing of packets inside a frame does not
/// look like queueing. A packet that arrives less than 5 ms after the group's last one with
/// a negative delay variation also joins it (§5.2: a burst released by a queue ahead of us,
/// e.g. a Wi-Fi aggregate, says nothing about our own queue); such bursts are capped at
/// 100 ms as in libwebrtc.
///
/// For groups i-1 and i, with T the send time and t the arrival time of each group's last
/// packet: the inter-departure time T(i) - T(i-1), the inter-arrival time t(i) - t(i-1),
/// and the inter-group delay variation d(i) = (t(i) - t(i-1)) - (T(i) - T(i-1)).
///
/// Send times are ours (``MonoTime``); arrival times are the receiver's clock, a `Duration`
/// since its zero (see ``DelayBasedEstimator/packet(sendTime:arrivalTime:)``).
struct PacketGroupDeltas: Sendable, Hashable {
    struct Group: Sendable, Hashable {
        var firstSendTime: MonoTime
        var lastSendTime: MonoTime
        var firstArrival: Duration
        var lastArrival: Duration
    }

    /// The deltas between two complete groups.
    struct Delta: Sendable, Hashable {
        /// T(i) - T(i-1); negative when packets were reordered.
        var sendDelta: Duration
        /// t(i) - t(i-1).
        var arrivalDelta: Duration
        /// Arrival of the later group's last packet, on the receiver's clock.
        var arrivalTime: Duration

        /// d(i) in ms, the trendline's unit (each delta converted to ms, then subtracted).
        var delayVariation: Double { arrivalDelta.milliseconds - sendDelta.milliseconds }
    }

    static let burstArrival: Duration = .milliseconds(5)
    static let maxBurst: Duration = .milliseconds(100)
    /// A delay variation this large means a clock jump or a long outage, not a queue:
    /// start over rather than feed it to the trendline.
    static let resetDelayVariation: Duration = .seconds(3)

    var burstInterval: Duration
    private(set) var current: Group?
    private(set) var previous: Group?

    init(burstInterval: Duration) {
        self.burstInterval = burstInterval
    }

    /// Adds one packet (in send order). Returns the deltas between the two most recent
    /// complete groups when this packet starts a new group.
    mutating func add(sendTime: MonoTime, arrival: Duration) -> Delta? {
        guard var group = current else {
            current = Group(firstSendTime: sendTime, lastSendTime: sendTime, firstArrival: arrival, lastArrival: arrival)
            return nil
        }
        // Sent before the current group began: it belongs to a group already measured.
        guard sendTime >= group.firstSendTime else { return nil }
        if belongs(sendTime: sendTime, arrival: arrival, to: group) {
            group.lastSendTime = max(group.lastSendTime, sendTime)
            group.lastArrival = max(group.lastArrival, arrival)
            current = group
            return nil
        }
        let next = Group(firstSendTime: sendTime, lastSendTime: sendTime, firstArrival: arrival, lastArrival: arrival)
        defer {
            previous = group
            current = next
        }
        guard let earlier = previous else { return nil }
        let delta = Delta(
            sendDelta: group.lastSendTime - earlier.lastSendTime,
            arrivalDelta: group.lastArrival - earlier.lastArrival,
            arrivalTime: group.lastArrival)
        // The pair is dropped; the next delta is measured from `group` again.
        return abs(delta.delayVariation) > Self.resetDelayVariation.milliseconds ? nil : delta
    }

    private func belongs(sendTime: MonoTime, arrival: Duration, to group: Group) -> Bool {
        if sendTime - group.firstSendTime <= burstInterval { return true }
        let arrivalDelta = arrival - group.lastArrival
        // Whole µs, truncated toward zero: the resolution of the arrival times.
        let sendDelta = Duration.microseconds((sendTime - group.lastSendTime).nanoseconds / 1_000)
        return arrivalDelta >= .zero && arrivalDelta < Self.burstArrival
            && arrivalDelta - sendDelta < .zero
            && arrival - group.firstArrival < Self.maxBurst
    }
}
