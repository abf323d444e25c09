/// transport-cc feedback as the sender's estimator reads it: the first packet's number, the
/// reference time, and each packet's receive delta in order. ``TransportWideFeedback`` (a
/// value, for building and tests) and ``TransportFeedbackView`` (in place, for the relay's
/// per-feedback path) both give it.
public protocol TransportFeedbackPackets {
    var baseSequenceNumber: UInt16 { get }
    /// 64 ms units, 24-bit signed on the wire.
    var referenceTime: Int32 { get }
    /// Calls `body` with each packet's offset from ``baseSequenceNumber`` and its receive
    /// delta in 250 µs units (nil: not received), in order.
    func forEachPacket(_ body: (Int, Int16?) -> Void)
}

extension TransportWideFeedback: TransportFeedbackPackets {
    public func forEachPacket(_ body: (Int, Int16?) -> Void) {
        for (offset, delta) in receiveDeltas.enumerated() { body(offset, delta) }
    }
}
