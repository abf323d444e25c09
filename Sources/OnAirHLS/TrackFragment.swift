/// One track's share of a movie fragment: the 'traf' (ISO/IEC 14496-12 §8.8.6) with its
/// samples' table, plus the samples' bytes that go into the fragment's 'mdat'.
public struct TrackFragment: Equatable, Sendable {
    public var trackID: UInt32
    /// §8.8.12 'tfdt' baseMediaDecodeTime: the decode time of the first sample, in the
    /// track's timescale, since the start of the track.
    public var baseMediaDecodeTime: UInt64
    public var samples: [FragmentSample]
    /// The samples' bytes back to back, in table order.
    public var data: [UInt8]

    public init(trackID: UInt32, baseMediaDecodeTime: UInt64, samples: [FragmentSample] = [], data: [UInt8] = []) {
        self.trackID = trackID
        self.baseMediaDecodeTime = baseMediaDecodeTime
        self.samples = samples
        self.data = data
    }

    /// The summed sample durations, in the track's timescale.
    public var duration: UInt64 { samples.reduce(0) { $0 + UInt64($1.duration) } }

    /// §8.8.7 'tfhd' flag: base data offsets are relative to the enclosing 'moof'
    /// (brand 'iso5'), so a fragment can be served on its own or concatenated.
    static let defaultBaseIsMoof: UInt32 = 0x02_0000
    /// §8.8.8 'trun' flags: data-offset-present | sample-duration-present |
    /// sample-size-present | sample-flags-present.
    static let trackRunFlags: UInt32 = 0x00_0001 | 0x00_0100 | 0x00_0200 | 0x00_0400

    /// Writes the 'traf' and returns the position of the 'trun' data_offset field, which
    /// the caller patches once the 'mdat' position is known.
    func writeBox(to writer: inout BoxWriter) -> Int {
        var dataOffsetPosition = 0
        writer.box("traf") { traf in
            traf.fullBox("tfhd", version: 0, flags: Self.defaultBaseIsMoof) { $0.write(trackID) }
            traf.fullBox("tfdt", version: 1, flags: 0) { $0.write(baseMediaDecodeTime) }
            traf.fullBox("trun", version: 0, flags: Self.trackRunFlags) { trun in
                trun.write(UInt32(samples.count))
                dataOffsetPosition = trun.count
                trun.write(Int32(0))
                for sample in samples {
                    trun.write(sample.duration)
                    trun.write(sample.size)
                    trun.write(sample.flags.rawValue)
                }
            }
        }
        return dataOffsetPosition
    }
}
