/// ISO/IEC 14496-12 §8.8.3 `TrackExtendsBox` ('trex'): defaults for a track's fragments.
///
/// Every default is zero except the sample description index: each `trun` in our
/// fragments carries explicit durations, sizes and flags, so nothing relies on them.
public struct TrackExtendsBox: BoxWritable, Equatable {
    public var trackID: UInt32

    public init(trackID: UInt32) { self.trackID = trackID }

    public func write(to writer: inout BoxWriter) {
        writer.fullBox("trex", version: 0, flags: 0) { body in
            body.write(trackID)
            body.write(UInt32(1))   // default_sample_description_index
            body.write(UInt32(0))   // default_sample_duration
            body.write(UInt32(0))   // default_sample_size
            body.write(UInt32(0))   // default_sample_flags
        }
    }
}
