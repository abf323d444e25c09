/// The Media Initialization Section of an fMP4 stream (RFC 8216bis §3.1.2, named by
/// EXT-X-MAP): 'ftyp' then a 'moov' (ISO/IEC 14496-12 §8.2.1) with 'mvhd', one 'trak'
/// per track and an 'mvex' (§8.8.1) whose 'trex' boxes announce that the samples come
/// in movie fragments.
public struct InitializationSegment: BoxWritable, Equatable {
    public var fileType: FileTypeBox
    public var tracks: [TrackBox]

    public init(fileType: FileTypeBox = .fragmentedMP4, tracks: [TrackBox]) {
        self.fileType = fileType
        self.tracks = tracks
    }

    public func write(to writer: inout BoxWriter) {
        fileType.write(to: &writer)
        writer.box("moov") { moov in
            let nextTrackID = (tracks.map(\.trackID).max() ?? 0) + 1
            MovieHeaderBox(timescale: 1000, nextTrackID: nextTrackID).write(to: &moov)
            for track in tracks { track.write(to: &moov) }
            moov.box("mvex") { mvex in
                for track in tracks { TrackExtendsBox(trackID: track.trackID).write(to: &mvex) }
            }
        }
    }
}
