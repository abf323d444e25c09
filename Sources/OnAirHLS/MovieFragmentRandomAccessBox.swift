/// ISO/IEC 14496-12 §8.8.9 `MovieFragmentRandomAccessBox` ('mfra'): the index that may
/// close a fragmented MP4 file. One 'tfra' (§8.8.10) per indexed track lists where its
/// random access samples are (decode time and the file offset of their 'moof'); the 'mfro'
/// (§8.8.11) at the very end repeats the size of the whole 'mfra', so that a reader can find
/// it by reading the last 16 bytes of the file.
///
/// A recording of a live stream is a playable file without it (the fragments are
/// self-describing); the index only makes seeking in a finished recording cheap.
public struct MovieFragmentRandomAccessBox: BoxWritable, Equatable {
    /// A random access point: the first sample of the first run of the given track in the
    /// fragment that starts at `moofOffset`.
    public struct Entry: Equatable, Sendable {
        /// Decode time of the sample, in the track's timescale (its 'tfdt').
        public var time: UInt64
        /// Offset of the fragment's 'moof' from the start of the file.
        public var moofOffset: UInt64

        public init(time: UInt64, moofOffset: UInt64) {
            self.time = time
            self.moofOffset = moofOffset
        }
    }

    public struct Track: Equatable, Sendable {
        public var trackID: UInt32
        /// The track's 'traf' position in each listed 'moof', 1-based.
        public var trafNumber: UInt8
        public var entries: [Entry]

        public init(trackID: UInt32, trafNumber: UInt8 = 1, entries: [Entry]) {
            self.trackID = trackID
            self.trafNumber = trafNumber
            self.entries = entries
        }
    }

    public var tracks: [Track]

    public init(tracks: [Track]) { self.tracks = tracks }

    public func write(to writer: inout BoxWriter) {
        let start = writer.count
        writer.box("mfra") { mfra in
            for track in tracks {
                // Version 1: 64-bit time and moof_offset. length_size_of_traf_num,
                // _trun_num and _sample_num all 0: each of those numbers is one byte.
                mfra.fullBox("tfra", version: 1, flags: 0) { tfra in
                    tfra.write(track.trackID)
                    tfra.write(UInt32(0))
                    tfra.write(UInt32(truncatingIfNeeded: track.entries.count))
                    for entry in track.entries {
                        tfra.write(entry.time)
                        tfra.write(entry.moofOffset)
                        tfra.write(track.trafNumber)
                        tfra.write(UInt8(1))    // trun_number
                        tfra.write(UInt8(1))    // sample_number
                    }
                }
            }
            // §8.8.11: the size of the enclosing 'mfra', this box included (16 bytes).
            let mfroSize = UInt32(truncatingIfNeeded: mfra.count - start + 16)
            mfra.fullBox("mfro", version: 0, flags: 0) { $0.write(mfroSize) }
        }
    }
}
