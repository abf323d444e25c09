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
struct PacketGroupDeltas: Sendable, Hashable {
    struct Group: Sendable, Hashable {
        var firstSendTime: UInt64
        var lastSendTime: UInt64
        var firstArrival: Int64
        var lastArrival: Int64
    }

    /// The deltas between two complete groups, in milliseconds.
    struct Delta: Sendable, Hashable {
        var sendDelta: Double
        var arrivalDelta: Double
        /// Arrival of the later group's last packet, µs on the receiver's clock.
        var arrivalTime: Int64

        var delayVariation: Double { arrivalDelta - sendDelta }
    }

    static let burstArrivalMicroseconds: Int64 = 5_000
    static let maxBurstMicroseconds: Int64 = 100_000
    /// A delay variation this large (ms) means a clock jump or a long outage, not a
    /// queue: start over rather than feed it to the trendline.
    static let resetDelayVariation: Double = 3_000

    var burstInterval: UInt64
    private(set) var current: Group?
    private(set) var previous: Group?

    init(burstInterval: UInt64) {
        self.burstInterval = burstInterval
    }

    /// Adds one packet (in send order). Returns the deltas between the two most recent
    /// complete groups when this packet starts a new group.
    mutating func add(sendTime: UInt64, arrival: Int64) -> Delta? {
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
            sendDelta: Double(Self.signedDifference(group.lastSendTime, earlier.lastSendTime)) / 1e6,
            arrivalDelta: Double(group.lastArrival - earlier.lastArrival) / 1e3,
            arrivalTime: group.lastArrival)
        // The pair is dropped; the next delta is measured from `group` again.
        return abs(delta.delayVariation) > Self.resetDelayVariation ? nil : delta
    }

    private func belongs(sendTime: UInt64, arrival: Int64, to group: Group) -> Bool {
        if sendTime - group.firstSendTime <= burstInterval { return true }
        let arrivalDelta = arrival - group.lastArrival
        let sendDelta = Self.signedDifference(sendTime, group.lastSendTime) / 1_000
        return arrivalDelta >= 0 && arrivalDelta < Self.burstArrivalMicroseconds
            && arrivalDelta - sendDelta < 0
            && arrival - group.firstArrival < Self.maxBurstMicroseconds
    }

    /// `a - b` in nanoseconds; negative when packets were reordered.
    private static func signedDifference(_ a: UInt64, _ b: UInt64) -> Int64 {
        Int64(bitPattern: a &- b)
    }
}
