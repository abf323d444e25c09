/// One H.264 access unit handed to the packager.
public struct VideoAccessUnit: Sendable {
    /// The NAL units in AVCC form, each preceded by its 4-byte big-endian length
    /// (ISO/IEC 14496-15 §5.3.2 with lengthSizeMinusOne = 3), exactly as an 'mdat' sample
    /// carries them.
    public var data: [UInt8]
    /// Presentation time on the 90 kHz RTP clock (RFC 6184 §5.1), unwrapped to 64 bits
    /// and on the same epoch as the audio timestamps. WebRTC H.264 has no B-frames, so
    /// decode time equals presentation time.
    public var timestamp: Int64
    /// The access unit holds an IDR picture (nal_unit_type 5), i.e. decoding can start here.
    public var isKeyframe: Bool

    public init(data: [UInt8], timestamp: Int64, isKeyframe: Bool) {
        self.data = data
        self.timestamp = timestamp
        self.isKeyframe = isKeyframe
    }
}
