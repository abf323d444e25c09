import CLiveOpus

/// Opus through libopus for WebRTC (RFC 7587): 48 kHz stereo, 20 ms frames (960 samples per
/// channel), in-band FEC on so a receiver can rebuild a lost frame from the next one
/// (RFC 6716 §2.1.7), music signal type (the test tone and file soundtracks are not speech).
public final class OpusAudioEncoder {
    public static let sampleRate = 48_000
    public static let channels = 2
    /// Samples per channel in one 20 ms frame.
    public static let frameSamples = 960
    /// RFC 7587 §4.2 does not cap a packet; 1275 bytes is the largest single Opus frame (RFC 6716 §3.4).
    public static let maxPacketBytes = 1275

    private let encoder: OpaquePointer
    private let packet: UnsafeMutablePointer<UInt8>
    public private(set) var bitrate: Int

    /// - Parameters:
    ///   - bitrate: bits/s (6000...510000).
    ///   - expectedLossPercent: tells the encoder how much redundancy FEC should carry.
    public init(bitrate: Int, expectedLossPercent: Int = 5) throws(OpusEncoderError) {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(Self.sampleRate), Int32(Self.channels), OPUS_APPLICATION_AUDIO, &error),
              error == OPUS_OK else {
            throw OpusEncoderError("opus_encoder_create: \(String(cString: opus_strerror(error)))")
        }
        self.encoder = encoder
        self.bitrate = bitrate
        packet = .allocate(capacity: Self.maxPacketBytes)
        try Self.check(clive_opus_set_bitrate(encoder, Int32(bitrate)), "bitrate \(bitrate)")
        try Self.check(clive_opus_set_inband_fec(encoder, 1), "inband FEC")
        try Self.check(clive_opus_set_packet_loss_perc(encoder, Int32(expectedLossPercent)), "packet loss percentage")
        try Self.check(clive_opus_set_signal_music(encoder), "signal type")
    }

    deinit {
        opus_encoder_destroy(encoder)
        packet.deallocate()
    }

    private static func check(_ result: Int32, _ what: String) throws(OpusEncoderError) {
        if result != OPUS_OK { throw OpusEncoderError("opus \(what): \(String(cString: opus_strerror(result)))") }
    }

    /// Tells FEC how lossy the path is (from RTCP receiver reports).
    public func setExpectedLoss(percent: Int) {
        _ = clive_opus_set_packet_loss_perc(encoder, Int32(max(0, min(100, percent))))
    }

    /// Encodes one 20 ms frame of interleaved stereo samples (960 x 2). The packet is valid
    /// until the next call. Allocation-free.
    public func encode(_ samples: UnsafePointer<Int16>) throws(OpusEncoderError) -> UnsafeBufferPointer<UInt8> {
        let length = opus_encode(encoder, samples, Int32(Self.frameSamples), packet, Int32(Self.maxPacketBytes))
        guard length > 0 else { throw OpusEncoderError("opus_encode: \(String(cString: opus_strerror(length)))") }
        return UnsafeBufferPointer(start: packet, count: Int(length))
    }
}
