/// A movie fragment: 'moof' (ISO/IEC 14496-12 §8.8.4) with its 'mfhd' sequence number
/// (§8.8.5) and one 'traf' per track that has samples, followed by the 'mdat' (§8.1.1)
/// holding those samples. In LL-HLS each Partial Segment is one such fragment and a
/// Media Segment is its parts back to back (RFC 8216bis §3.1.2, ISO/IEC 23000-19 §7.3.2.3
/// CMAF chunks).
public struct MovieFragment: BoxWritable, Equatable {
    /// Starts at 1 and increases by one per fragment of the stream (§8.8.5).
    public var sequenceNumber: UInt32
    public var tracks: [TrackFragment]

    public init(sequenceNumber: UInt32, tracks: [TrackFragment]) {
        self.sequenceNumber = sequenceNumber
        self.tracks = tracks
    }

    public func write(to writer: inout BoxWriter) {
        let present = tracks.filter { !$0.samples.isEmpty }
        let moofStart = writer.count
        var offsetPositions: [Int] = []
        writer.box("moof") { moof in
            moof.fullBox("mfhd", version: 0, flags: 0) { $0.write(sequenceNumber) }
            for track in present { offsetPositions.append(track.writeBox(to: &moof)) }
        }
        // §8.8.8: data_offset is added to the base data offset, which default-base-is-moof
        // makes the first byte of this 'moof'.
        var dataStart = writer.count + 8 - moofStart
        for (track, position) in zip(present, offsetPositions) {
            writer.patch(UInt32(truncatingIfNeeded: dataStart), at: position)
            dataStart += track.data.count
        }
        writer.box("mdat") { mdat in
            for track in present { mdat.write(contentsOf: track.data) }
        }
    }
}
