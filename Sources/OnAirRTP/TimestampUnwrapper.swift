/// Extends 32-bit RTP timestamps (RFC 3550 §5.1) to a 64-bit value that does not wrap.
/// Each timestamp is placed within half the timestamp space of the previous one, so
/// forward wraps and reordering (e.g. B-frames, retransmissions) both come out right.
///
/// The first value maps to itself; an earlier timestamp seen next may map below zero.
public struct TimestampUnwrapper: Sendable, Hashable {
    public private(set) var last: Int64?

    public init() {}

    /// The extended value of `timestamp`, which becomes the new reference.
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        let value = peek(timestamp)
        last = value
        return value
    }

    /// The extended value of `timestamp` without moving the reference.
    public func peek(_ timestamp: UInt32) -> Int64 {
        guard let last else { return Int64(timestamp) }
        let step = Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: last))
        return last + Int64(step)
    }
}
