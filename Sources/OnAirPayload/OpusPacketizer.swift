import OnAirWire

/// RTP timing for Opus (RFC 7587 §4.2): each RTP payload is exactly one Opus packet,
/// unchanged, so packetizing is bookkeeping: the RTP timestamp runs on a 48 kHz clock
/// whatever the audio bandwidth (§4.1) and advances by the duration of each packet.
///
/// Marker bit (§4.1, by way of RFC 3551 §4.1): set on the first packet after a silence
/// in which nothing was sent (discontinuous transmission); zero otherwise. A sender that
/// stops sending during silence reports it with ``skipSilence(samples:)``.
public struct OpusPacketizer: Hashable, Sendable {
    /// What to put in the RTP header of one Opus packet.
    public struct Output: Hashable, Sendable {
        public var timestamp: UInt32
        public var marker: Bool
        /// Samples at 48 kHz that the packet plays.
        public var durationSamples: Int
    }

    /// RTP timestamp of the next packet.
    public private(set) var nextTimestamp: UInt32
    private var afterSilence = false

    public init(initialTimestamp: UInt32) {
        nextTimestamp = initialTimestamp
    }

    /// The RTP timestamp and marker of `packet` (an encoder's output, the RTP payload as
    /// it is). Throws, and does not advance, if the packet's framing is not valid Opus.
    public mutating func packetize<Bytes: Collection>(_ packet: Bytes) throws(WireError) -> Output
    where Bytes.Element == UInt8 {
        let info = try OpusPacketInfo(packet: packet)
        let output = Output(timestamp: nextTimestamp, marker: afterSilence, durationSamples: info.durationSamples)
        nextTimestamp &+= UInt32(info.durationSamples)
        afterSilence = false
        return output
    }

    /// Nothing was sent for `samples` (48 kHz): the timestamp still advances (RFC 3550
    /// §5.1, it counts sampling instants) and the next packet starts a talkspurt.
    public mutating func skipSilence(samples: Int) {
        guard samples > 0 else { return }
        nextTimestamp &+= UInt32(truncatingIfNeeded: samples)
        afterSilence = true
    }
}
