/// ISO/IEC 14496-12 §8.8.3.1 sample flags as carried per sample in 'trun':
/// reserved(4) is_leading(2) sample_depends_on(2) sample_is_depended_on(2)
/// sample_has_redundancy(2) sample_padding_value(3) sample_is_non_sync_sample(1)
/// sample_degradation_priority(16).
public struct SampleFlags: Hashable, Sendable {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A sync sample that depends on no other (sample_depends_on = 2): an IDR access unit,
    /// or any audio frame.
    public static let sync = SampleFlags(rawValue: 0x0200_0000)
    /// A sample that depends on others (sample_depends_on = 1) and is not a sync sample.
    public static let nonSync = SampleFlags(rawValue: 0x0101_0000)

    public var isSync: Bool { rawValue & 0x0001_0000 == 0 }
}
