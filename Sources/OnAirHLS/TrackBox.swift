/// ISO/IEC 14496-12 §8.3.1 `TrackBox` ('trak') of a fragmented file: the track header,
/// the media header and handler, and a sample table whose sample description is the
/// only content — every sample lives in movie fragments, so 'stts', 'stsc', 'stsz' and
/// 'stco' are present (they are mandatory) but empty (§8.8.1).
public struct TrackBox: BoxWritable, Equatable {
    /// What a track carries, with its sample entry (§8.5.2).
    public enum Media: Equatable, Sendable {
        case video(AVCSampleEntry)
        case audio(MP4AudioSampleEntry)
    }

    public var trackID: UInt32
    public var timescale: UInt32
    public var media: Media

    public init(trackID: UInt32, timescale: UInt32, media: Media) {
        self.trackID = trackID
        self.timescale = timescale
        self.media = media
    }

    public func write(to writer: inout BoxWriter) {
        writer.box("trak") { trak in
            switch media {
            case .video(let entry):
                TrackHeaderBox(trackID: trackID, width: entry.width, height: entry.height, isAudio: false).write(to: &trak)
            case .audio:
                TrackHeaderBox(trackID: trackID, isAudio: true).write(to: &trak)
            }
            trak.box("mdia") { mdia in
                MediaHeaderBox(timescale: timescale).write(to: &mdia)
                switch media {
                case .video: HandlerBox.video.write(to: &mdia)
                case .audio: HandlerBox.sound.write(to: &mdia)
                }
                mdia.box("minf") { minf in
                    writeMediaHeader(to: &minf)
                    Self.writeDataInformation(to: &minf)
                    writeSampleTable(to: &minf)
                }
            }
        }
    }

    /// §12.1.2 'vmhd' (flags 1, copy mode, no opcolor) or §12.2.2 'smhd' (centred balance).
    private func writeMediaHeader(to writer: inout BoxWriter) {
        switch media {
        case .video:
            writer.fullBox("vmhd", version: 0, flags: 1) { body in body.writeZeros(2 + 6) }
        case .audio:
            writer.fullBox("smhd", version: 0, flags: 0) { body in body.writeZeros(2 + 2) }
        }
    }

    /// §8.7.1 'dinf' with a §8.7.2 'dref' of one 'url ' entry whose flag 1 says the media
    /// data is in the same file.
    static func writeDataInformation(to writer: inout BoxWriter) {
        writer.box("dinf") { dinf in
            dinf.fullBox("dref", version: 0, flags: 0) { dref in
                dref.write(UInt32(1))
                dref.fullBox("url ", version: 0, flags: 1) { _ in }
            }
        }
    }

    /// §8.5.1 'stbl': §8.5.2 'stsd' with one entry, then the empty §8.6.1.2 'stts',
    /// §8.7.4 'stsc', §8.7.3.2 'stsz' (sample_size 0, sample_count 0) and §8.7.5 'stco'.
    private func writeSampleTable(to writer: inout BoxWriter) {
        writer.box("stbl") { stbl in
            stbl.fullBox("stsd", version: 0, flags: 0) { stsd in
                stsd.write(UInt32(1))
                switch media {
                case .video(let entry): entry.write(to: &stsd)
                case .audio(let entry): entry.write(to: &stsd)
                }
            }
            stbl.fullBox("stts", version: 0, flags: 0) { $0.write(UInt32(0)) }
            stbl.fullBox("stsc", version: 0, flags: 0) { $0.write(UInt32(0)) }
            stbl.fullBox("stsz", version: 0, flags: 0) { $0.write(UInt32(0)); $0.write(UInt32(0)) }
            stbl.fullBox("stco", version: 0, flags: 0) { $0.write(UInt32(0)) }
        }
    }
}
