/// One raw AAC access unit (no ADTS header; ISO/IEC 14496-3 §1.6.2.2 raw_data_block),
/// 1024 samples long for AAC-LC.
public struct AudioFrame: Sendable {
    public var data: [UInt8]
    /// The time of the frame's first sample, counted in samples at the AAC sampling rate,
    /// on the same epoch as the video timestamps.
    public var timestamp: Int64

    public init(data: [UInt8], timestamp: Int64) {
        self.data = data
        self.timestamp = timestamp
    }
}
