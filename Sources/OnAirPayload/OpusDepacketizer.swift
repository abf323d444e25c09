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
        var statistics = self.statistics
        var expected = expectedTimestamp
        statistics.packetsReceived += 1
        let disposition = reorder.insert(packet) { packet, lost in
            statistics.packetsLost += lost
            guard let info = try? OpusPacketInfo(packet: packet.payload) else {
                statistics.packetsMalformed += 1
                return
            }
            let gap = expected.map { Int(Int32(bitPattern: packet.timestamp &- $0)) } ?? 0
            expected = packet.timestamp &+ UInt32(info.durationSamples)
            statistics.framesEmitted += 1
            emit(Frame(timestamp: packet.timestamp, packet: packet.payload, info: info,
                       packetsLostBefore: lost, gapSamples: gap))
        }
        switch disposition {
        case .accepted: break
        case .duplicate: statistics.packetsDuplicate += 1
        case .late: statistics.packetsLate += 1
        }
        self.statistics = statistics
        expectedTimestamp = expected
    }

    /// ``receive(_:emit:)`` returning the frames.
    public mutating func receive(_ packet: RTPPayloadPacket) -> [Frame] {
        var frames: [Frame] = []
        receive(packet) { frames.append($0) }
        return frames
    }
}
