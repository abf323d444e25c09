import OnAirWire

/// What we sent, by transport-wide sequence number
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2): send time and size, kept until
/// feedback about the packet arrives or it is overwritten.
///
/// A fixed ring indexed by the low bits of the extended (unwrapped) sequence number:
/// recording a packet is a store, never an allocation, since it runs once per packet sent.
/// Each slot keeps the full extended number, so a slot reused by a newer packet is told
/// apart from the one feedback asks about, across the 65535 → 0 wrap too.
struct SentPacketHistory: Sendable, Hashable {
    struct Entry: Sendable, Hashable {
        /// -1: empty.
        var sequence: Int64 = -1
        var sendTime = MonoTime.zero
        var size: Int32 = 0
        var acknowledged = false
    }

    private var entries: [Entry]
    private let mask: Int64

    /// - Parameter capacity: rounded up to a power of two, at least 16. 8192 packets hold
    ///   several seconds even at 10 Mbit/s, far longer than feedback takes to come back.
    init(capacity: Int) {
        var size = 16
        while size < capacity { size <<= 1 }
        entries = Array(repeating: Entry(), count: size)
        mask = Int64(size - 1)
    }

    var capacity: Int { entries.count }

    mutating func record(sequence: Int64, sendTime: MonoTime, size: Int) {
        entries[Int(sequence & mask)] = Entry(
            sequence: sequence, sendTime: sendTime, size: Int32(clamping: size), acknowledged: false)
    }

    /// The entry for `sequence` if it is still held.
    func entry(_ sequence: Int64) -> Entry? {
        let entry = entries[Int(sequence & mask)]
        return entry.sequence == sequence ? entry : nil
    }

    /// Marks `sequence` received and returns it, unless it is gone or was already
    /// acknowledged (feedback may repeat a packet; counting it twice would inflate the
    /// acknowledged bitrate and feed the trendline a zero-length group).
    mutating func acknowledge(_ sequence: Int64) -> Entry? {
        let index = Int(sequence & mask)
        guard entries[index].sequence == sequence, !entries[index].acknowledged else { return nil }
        entries[index].acknowledged = true
        return entries[index]
    }
}
