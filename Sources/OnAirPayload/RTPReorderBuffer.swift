/// Restores sequence-number order among RTP packets of one stream and finds losses
/// (RFC 3550 §5.1: the sequence number increments by one per packet "and may be used by
/// the receiver to detect packet loss and to restore packet sequence").
///
/// Packets are held in a ring of `window` slots indexed by sequence number. A packet that
/// arrives in order while nothing is held is handed on at once, without being stored. A
/// gap holds back the packets after it until a packet `window` sequence numbers past the
/// gap arrives; then the missing packets are given up as lost. Without clocks (sans-I/O)
/// that is the only trigger, so a caller that wants a time bound calls ``flush(deliver:)``
/// from its own timer.
///
/// Sequence numbers are compared modulo 2^16 (RFC 3550 §A.1), so 65535 → 0 is one step.
public struct RTPReorderBuffer: Sendable {
    /// What became of an inserted packet.
    public enum Disposition: Hashable, Sendable {
        /// Delivered now or held for later delivery.
        case accepted
        /// Its sequence number is already held: dropped.
        case duplicate
        /// Older than the next expected packet (already delivered, or given up as lost):
        /// dropped.
        case late
    }

    public static let defaultWindow = 64

    /// Ring slots; the packet with extended sequence number s lives at s mod window.
    private var slots: [RTPPayloadPacket?]
    /// Extended sequence number of the next packet to deliver; nil before the first.
    private var head: Int64?
    public private(set) var bufferedCount = 0
    /// Sequence numbers skipped since the last delivery, reported with the next one.
    private var pendingLost = 0
    /// "Late" packets in a row; a long run means the sender jumped backwards.
    private var consecutiveLate = 0

    /// - Parameter window: how far past a gap packets may arrive before the gap is
    ///   declared lost (at least 1; 1 means no reordering at all).
    public init(window: Int = defaultWindow) {
        precondition(window >= 1, "the reorder window needs at least one slot")
        slots = Array(repeating: nil, count: window)
    }

    public var window: Int { slots.count }

    /// Inserts `packet` and hands every packet that is now in order to `deliver`, with
    /// the number of sequence numbers lost just before it (0 when none).
    @discardableResult
    public mutating func insert(_ packet: RTPPayloadPacket, deliver: (RTPPayloadPacket, _ lostBefore: Int) -> Void) -> Disposition {
        guard let current = head else {
            head = Int64(packet.sequenceNumber) + 1
            deliver(packet, 0)
            return .accepted
        }
        let step = Int64(Int16(bitPattern: packet.sequenceNumber &- UInt16(truncatingIfNeeded: current)))
        let sequence = current + step
        if step < 0 {
            consecutiveLate += 1
            guard consecutiveLate >= Self.lateRunForResync(window: window) else { return .late }
            // A long run of "late" packets: the sender restarted its numbering.
            // Deliver what is held and continue from this packet, marking the break.
            flush(deliver: deliver)
            consecutiveLate = 0
            pendingLost = 0
            head = sequence + 1
            deliver(packet, 1)
            return .accepted
        }
        consecutiveLate = 0
        if step == 0 && bufferedCount == 0 {
            head = sequence + 1
            deliver(packet, takeLost())
            return .accepted
        }
        if step >= Int64(window) {
            release(before: sequence - Int64(window) + 1, deliver: deliver)
        }
        let slot = index(sequence)
        guard slots[slot] == nil else { return .duplicate }
        slots[slot] = packet
        bufferedCount += 1
        drain(deliver: deliver)
        return .accepted
    }

    /// Delivers every held packet in order, counting the gaps between them as lost.
    /// The next packet expected is then the one after the last delivered.
    public mutating func flush(deliver: (RTPPayloadPacket, _ lostBefore: Int) -> Void) {
        guard var position = head else { return }
        while bufferedCount > 0 {
            let slot = index(position)
            if let packet = slots[slot] {
                slots[slot] = nil
                bufferedCount -= 1
                head = position + 1
                deliver(packet, takeLost())
            } else {
                pendingLost += 1
            }
            position += 1
        }
        head = position
    }

    /// How many "late" packets in a row mean the sender restarted its numbering rather
    /// than a few stragglers: a window's worth, and never fewer than 16.
    static func lateRunForResync(window: Int) -> Int { max(window, 16) }

    /// Forgets everything: the next packet starts a new sequence.
    public mutating func reset() {
        for slot in slots.indices { slots[slot] = nil }
        head = nil
        bufferedCount = 0
        pendingLost = 0
        consecutiveLate = 0
    }

    /// Gives up on every sequence number before `target`: held packets among them are
    /// delivered, missing ones counted as lost.
    private mutating func release(before target: Int64, deliver: (RTPPayloadPacket, _ lostBefore: Int) -> Void) {
        guard var position = head else { return }
        while position < target {
            if bufferedCount == 0 {
                pendingLost += Int(target - position)
                position = target
                break
            }
            let slot = index(position)
            if let packet = slots[slot] {
                slots[slot] = nil
                bufferedCount -= 1
                deliver(packet, takeLost())
            } else {
                pendingLost += 1
            }
            position += 1
        }
        head = position
    }

    /// Delivers the held packets that continue the sequence without a gap.
    private mutating func drain(deliver: (RTPPayloadPacket, _ lostBefore: Int) -> Void) {
        while bufferedCount > 0, let position = head {
            let slot = index(position)
            guard let packet = slots[slot] else { return }
            slots[slot] = nil
            bufferedCount -= 1
            head = position + 1
            deliver(packet, takeLost())
        }
    }

    private mutating func takeLost() -> Int {
        defer { pendingLost = 0 }
        return pendingLost
    }

    @inline(__always)
    private func index(_ sequence: Int64) -> Int {
        let count = Int64(slots.count)
        return Int((sequence % count + count) % count)
    }
}
