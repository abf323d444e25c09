/// One raw AAC-LC access unit (no ADTS header) of 1024 samples, as an fMP4 `mdat` sample.
public struct AACFrame: Sendable, Equatable {
    public var bytes: [UInt8]
    /// Presentation time in samples at the stream's sample rate.
    public var pts: Int64
    public var duration: Int64 { 1024 }

    public init(bytes: [UInt8], pts: Int64) {
        self.bytes = bytes
        self.pts = pts
    }
}
