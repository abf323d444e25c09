/// One sample's row in a track run (ISO/IEC 14496-12 §8.8.8 'trun'): its duration in the
/// track's timescale, its size in bytes and its flags.
public struct FragmentSample: Equatable, Sendable {
    public var duration: UInt32
    public var size: UInt32
    public var flags: SampleFlags

    public init(duration: UInt32, size: UInt32, flags: SampleFlags) {
        self.duration = duration
        self.size = size
        self.flags = flags
    }
}
