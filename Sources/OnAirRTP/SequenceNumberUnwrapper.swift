/// Extends 16-bit RTP sequence numbers (RFC 3550 §5.1) to a 64-bit counter that does not
/// wrap. Each value is placed within half the sequence space (±32767) of the previous
/// one, so wraps forwards and reordering backwards across a wrap both come out right.
///
/// The first value maps to itself; a packet reordered before it may map below zero.
public struct SequenceNumberUnwrapper: Sendable, Hashable {
    public private(set) var last: Int64?

    public init() {}

    /// The extended value of `sequenceNumber`, which becomes the new reference.
    public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        let value = peek(sequenceNumber)
        last = value
        return value
    }

    /// The extended value of `sequenceNumber` without moving the reference.
    public func peek(_ sequenceNumber: UInt16) -> Int64 {
        guard let last else { return Int64(sequenceNumber) }
        let step = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: last))
        return last + Int64(step)
    }
}
