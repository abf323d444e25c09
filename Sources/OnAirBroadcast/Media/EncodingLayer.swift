import OnAirMedia

/// One encoding of the video: the picture at full size (the top layer) or scaled down for a
/// simulcast layer (RFC 8853), with an x264 encoder of its own and the bitrate the
/// ``SimulcastAllocator`` gave it (0: paused, nothing encoded).
final class EncodingLayer {
    /// RFC 8851 rid ("f", "h", "q"); empty without simulcast.
    let rid: String
    let encoder: H264Encoder
    /// Makes this layer's picture from the full-size one; nil for the top layer.
    let scaler: PictureScaler?
    /// Whether the WHIP answer accepted this layer (RFC 8853 §5.3); others are never encoded.
    var accepted = true
    private(set) var bitrate: Int
    /// What the ladder gives this layer below the top (``SimulcastLadder/Rung/bitrate``).
    let nominalBitrate: Int

    init(rid: String, encoder: H264Encoder, scaler: PictureScaler?, nominalBitrate: Int = 0) {
        self.rid = rid
        self.encoder = encoder
        self.scaler = scaler
        self.nominalBitrate = nominalBitrate
        bitrate = encoder.settings.bitrate
    }

    var isActive: Bool { accepted && bitrate > 0 }

    /// Applies an allocation; true when the layer was paused and sends again (it must start
    /// with an IDR, and the others with it, so switch points stay aligned).
    func setBitrate(_ bitrate: Int) -> Bool {
        let resumed = self.bitrate == 0 && bitrate > 0
        self.bitrate = bitrate
        if bitrate > 0 { encoder.reconfigure(bitrate: bitrate) }
        return resumed && accepted
    }
}
