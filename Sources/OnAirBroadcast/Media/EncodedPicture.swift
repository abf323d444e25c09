import OnAirMedia

/// One output frame encoded in every active layer: the same instant, the same RTP timestamp
/// (each layer's stream adds its own random offset), IDR on all layers or none of them.
struct EncodedPicture {
    /// Index into ``MediaPipeline/layers`` and that layer's frame (valid until its next encode).
    var frames: [(layer: Int, frame: EncodedVideoFrame)]
    var rtpTimestamp: UInt32
    var mediaTime: UInt64
    var capturedAt: UInt64

    var isKeyframe: Bool { frames.contains { $0.frame.isKeyframe } }
}
