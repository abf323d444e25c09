import OnAirWire

extension TransportWideFeedback {
    /// Feedback for consecutive packets from `baseSequenceNumber`, given each packet's
    /// arrival time in µs on the receiver's clock (nil: not received).
    ///
    /// The reference time is the first arrival rounded down to 64 ms; deltas are taken
    /// between arrival times truncated to 250 µs ticks, so rounding never accumulates.
    /// - Throws: ``WireError`` if a delta does not fit 16 signed bits (over ~8 s):
    ///   such a gap needs a new feedback packet.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, feedbackPacketCount: UInt8,
        arrivalTimesMicroseconds arrivals: [Int64?]
    ) throws(WireError) {
        guard arrivals.count <= Int(UInt16.max) else {
            throw .invalid("transport-cc feedback can describe at most 65535 packets, got \(arrivals.count)")
        }
        let first = arrivals.lazy.compactMap { $0 }.first ?? 0
        let referenceTicks = Self.floorDivide(first, Self.referenceTimeMicroseconds)
        // 64 ms = 256 ticks of 250 µs.
        var previousTick = referenceTicks * 256
        var deltas: [Int16?] = []
        deltas.reserveCapacity(arrivals.count)
        for arrival in arrivals {
            guard let arrival else {
                deltas.append(nil)
                continue
            }
            let tick = Self.floorDivide(arrival, Self.deltaMicroseconds)
            let delta = tick - previousTick
            guard let narrow = Int16(exactly: delta) else {
                throw .invalid("transport-cc receive delta of \(delta * 250) µs does not fit 16 bits")
            }
            deltas.append(narrow)
            previousTick = tick
        }
        // The wire field is 24-bit signed; its base is arbitrary, so wrap it.
        let wrapped = Int32(truncatingIfNeeded: referenceTicks & 0xFF_FFFF)
        self.init(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: baseSequenceNumber,
            referenceTime: wrapped >= 0x80_0000 ? wrapped - 0x100_0000 : wrapped,
            feedbackPacketCount: feedbackPacketCount, receiveDeltas: deltas)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
