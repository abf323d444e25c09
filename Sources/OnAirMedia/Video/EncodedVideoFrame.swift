/// What x264 made of one picture: its NAL units without start codes, borrowed from the
/// encoder until the next `encode` call (no copy on the way to the packetizer).
public struct EncodedVideoFrame {
    /// NAL units in decoding order (SPS and PPS precede every IDR: `b_repeat_headers`).
    public var nalUnits: [UnsafeBufferPointer<UInt8>]
    /// Presentation time in 90 kHz units, as given to `encode`.
    public var timestamp90kHz: Int64
    public var isKeyframe: Bool
    /// Bytes of all NAL units.
    public var byteCount: Int
}
