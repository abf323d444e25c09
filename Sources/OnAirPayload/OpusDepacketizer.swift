import OnAirWire

/// Opus packets from RTP (RFC 7587 §4.2: one Opus packet per payload): restores sequence
/// order with a small ``RTPReorderBuffer``, checks each packet's framing (RFC 6716 §3.4),
/// and tells the consumer about losses and silences so it can conceal or insert them.
public struct OpusDepacketizer: Sendable {
    /// One Opus packet ready for a decoder.
    public struct Frame: Hashable, Sendable {
        /// RTP timestamp (48 kHz).
        public var timestamp: UInt32
        /// The Opus packet, a slice of the RTP packet it came in.
        public var packet: ArraySlice<UInt8>
        public var info: OpusPacketInfo
        /// Sequence numbers lost just before this packet.
        public var packetsLostBefore: Int
        /// Samples between the end of the previous packet and this one: lost audio when
        /// packets were lost, silence when the sender paused (DTX). 0 when contiguous and
        /// for the first packet; negative for overlapping timestamps.
        public var gapSamples: Int
    }

    public struct Statistics: Hashable, Sendable {
        public var packetsReceived = 0
        public var packetsLost = 0
        public var packetsLate = 0
        public var packetsDuplicate = 0
        /// Payloads that are not valid Opus framing (including empty ones): dropped.
        public var packetsMalformed = 0
        public var framesEmitted = 0

        public init() {}
    }

    private var reorder: RTPReorderBuffer
    public private(set) var statistics = Statistics()
    /// Where the previous packet's audio ended (its timestamp plus its duration).
    private var expectedTimestamp: UInt32?

    public init(reorderWindow: Int = 8) {
        reorder = RTPReorderBuffer(window: reorderWindow)
    }

    /// Takes one RTP packet in arrival order; calls `emit` for each Opus packet now in order.
    public mutating func receive(_ packet: RTPPayloadPacket, emit: (Frame) -> Void) {
        statistics.packetsReceived += 1
        // The reorder buffer calls back with packets in order; the per-packet state lives in
        // locals meanwhile so the closure does not capture `self` while `reorder` is mutated.
        var state = (statistics: statistics, expected: expectedTimestamp)
        let disposition = reorder.insert(packet) { Self.deliver($0, lostBefore: $1, state: &state, emit: emit) }
        switch disposition {
        case .accepted: break
        case .duplicate: state.statistics.packetsDuplicate += 1
        case .late: state.statistics.packetsLate += 1
        }
        (statistics, expectedTimestamp) = state
    }

    /// Gives up waiting for missing packets and delivers what the reorder window holds.
    public mutating func flush(emit: (Frame) -> Void) {
        var state = (statistics: statistics, expected: expectedTimestamp)
        reorder.flush { Self.deliver($0, lostBefore: $1, state: &state, emit: emit) }
        (statistics, expectedTimestamp) = state
    }

    private static func deliver(_ packet: RTPPayloadPacket, lostBefore: Int,
                                state: inout (statistics: Statistics, expected: UInt32?), emit: (Frame) -> Void) {
        state.statistics.packetsLost += lostBefore
        guard let info = try? OpusPacketInfo(packet: packet.payload) else {
            state.statistics.packetsMalformed += 1
            return
        }
        let gap = state.expected.map { Int(Int32(bitPattern: packet.timestamp &- $0)) } ?? 0
        state.expected = packet.timestamp &+ UInt32(info.durationSamples)
        state.statistics.framesEmitted += 1
        emit(Frame(timestamp: packet.timestamp, packet: packet.payload, info: info,
                   packetsLostBefore: lostBefore, gapSamples: gap))
    }

    /// ``receive(_:emit:)`` returning the frames.
    public mutating func receive(_ packet: RTPPayloadPacket) -> [Frame] {
        var frames: [Frame] = []
        receive(packet) { frames.append($0) }
        return frames
    }
}
