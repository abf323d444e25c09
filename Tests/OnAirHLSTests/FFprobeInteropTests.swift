import Foundation
import OnAirHLS
import Testing

/// The packager's output read by an implementation we did not write: ffprobe/ffmpeg
/// (FFmpeg 5.1's mov and hls demuxers, h264 and aac decoders). `-v error` prints nothing
/// unless something is wrong, so every check requires empty stderr.
@Suite("ffprobe reads what the packager writes", .serialized)
struct FFprobeInteropTests {
    /// A finished presentation written out as an HLS directory.
    struct Written {
        var directory: URL
        var packager: LLHLSPackager
        var fedPictures: Int
        var fedAudioFrames: Int
    }

    static let probeEntries = "stream=codec_name,codec_type,profile,width,height,nb_read_frames,sample_rate,channels"

    func package(audio: Bool = true, partTarget: Duration = .milliseconds(333),
                 missingVideo: Range<Int> = 0..<0) throws -> Written {
        let media = try TestMedia.shared.get()
        var packager = try LLHLSPackager(configuration: LLHLSConfiguration(partTarget: partTarget),
                                         tracks: try media.trackConfiguration(audio: audio))
        packager.anchorProgramDateTime(unixMilliseconds: 1_700_000_000_000, mediaTimestamp: TestMedia.videoStart)
        _ = try media.feed(&packager, audio: audio, missingVideo: missingVideo)
        _ = packager.finish()
        let directory = try makeTemporaryDirectory("probe")
        let names = packager.configuration.names
        try write(packager.initializationSegment, to: directory.appendingPathComponent(names.initializationSegment))
        for segment in packager.segments {
            try write(segment.bytes, to: directory.appendingPathComponent(names.segment(segment.mediaSequence)))
            for part in segment.parts {
                try write(part.bytes, to: directory.appendingPathComponent(names.part(part.number)))
            }
        }
        try write(Array(packager.renderMediaPlaylist().utf8), to: directory.appendingPathComponent(names.mediaPlaylist))
        try write(Array(packager.multivariantPlaylist().render().utf8),
                  to: directory.appendingPathComponent(names.multivariantPlaylist))
        return Written(directory: directory, packager: packager, fedPictures: media.pictures.count - missingVideo.count,
                       fedAudioFrames: audio ? media.audioFrames.count : 0)
    }

    /// The top-level "streams" of ffprobe's JSON (the HLS demuxer also lists them again
    /// under "programs"), as field name → values in stream order.
    func probe(_ url: URL) throws -> (streams: [String: [String]], errors: String) {
        let output = try run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", Self.probeEntries,
                                         "-of", "json", url.path])
        #expect(output.status == 0)
        var fields: [String: [String]] = [:]
        let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        for stream in json?["streams"] as? [[String: Any]] ?? [] {
            for (key, value) in stream { fields[key, default: []].append("\(value)") }
        }
        return (fields, output.stderr)
    }

    /// Checks codecs, size and decoded frame counts against what was fed.
    func expectStreams(_ streams: [String: [String]], _ written: Written, sourceLabel: String) {
        let expectedAudio = written.fedAudioFrames - written.packager.droppedAudioFrames
        let hasAudio = written.fedAudioFrames > 0
        #expect(streams["codec_name"] == (hasAudio ? ["h264", "aac"] : ["h264"]), "\(sourceLabel)")
        #expect(streams["width"]?.first == "640", "\(sourceLabel)")
        #expect(streams["height"]?.first == "360", "\(sourceLabel)")
        #expect(streams["profile"]?.first == "Constrained Baseline" || streams["profile"]?.first == "Baseline")
        #expect(streams["nb_read_frames"]?.first == String(written.fedPictures), "\(sourceLabel)")
        if hasAudio {
            #expect(streams["profile"]?.last == "LC")
            #expect(streams["sample_rate"]?.last == "48000")
            #expect(streams["channels"]?.last == "1")
            #expect(streams["nb_read_frames"]?.last == String(expectedAudio), "\(sourceLabel)")
            // Only the last few milliseconds after the final video frame may be lost.
            #expect(written.packager.droppedAudioFrames <= 2)
        }
    }

    @Test func segmentsConcatenatedAfterInitDecodeCleanly() throws {
        let written = try package()
        defer { try? FileManager.default.removeItem(at: written.directory) }
        var file = written.packager.initializationSegment
        for segment in written.packager.segments { file += segment.bytes }
        let url = written.directory.appendingPathComponent("whole.mp4")
        try write(file, to: url)
        let (streams, errors) = try probe(url)
        #expect(errors.isEmpty, "ffprobe: \(errors)")
        expectStreams(streams, written, sourceLabel: "init + segments")
    }

    @Test func partsConcatenatedAfterInitDecodeCleanly() throws {
        let written = try package()
        defer { try? FileManager.default.removeItem(at: written.directory) }
        var file = written.packager.initializationSegment
        for segment in written.packager.segments { for part in segment.parts { file += part.bytes } }
        let url = written.directory.appendingPathComponent("parts.mp4")
        try write(file, to: url)
        let (streams, errors) = try probe(url)
        #expect(errors.isEmpty, "ffprobe: \(errors)")
        expectStreams(streams, written, sourceLabel: "init + parts")
    }

    @Test func mediaPlaylistDecodesThroughTheHLSDemuxer() throws {
        let written = try package()
        defer { try? FileManager.default.removeItem(at: written.directory) }
        let (streams, errors) = try probe(written.directory.appendingPathComponent("media.m3u8"))
        #expect(errors.isEmpty, "ffprobe: \(errors)")
        expectStreams(streams, written, sourceLabel: "media.m3u8")
    }

    @Test func multivariantPlaylistDecodesEveryFrameWithFFmpeg() throws {
        let written = try package()
        defer { try? FileManager.default.removeItem(at: written.directory) }
        let output = try run("ffmpeg", ["-v", "error", "-i", written.directory.appendingPathComponent("index.m3u8").path,
                                        "-map", "0", "-f", "null", "-"])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty, "ffmpeg: \(output.stderr)")
    }

    /// Video missing from 1.33 s to 3 s (camera off) while audio goes on: the audio-only
    /// parts in between and the return at the IDR of frame 90 decode without an error.
    @Test func streamWithAVideoStallDecodes() throws {
        let written = try package(missingVideo: 40..<90)
        defer { try? FileManager.default.removeItem(at: written.directory) }
        #expect(written.packager.segments.flatMap(\.parts).contains { part in
            (try? BoxWalker(Array(part.bytes)).runs(moofStart: 0).map(\.trackID)) == [2]
        })
        let (streams, errors) = try probe(written.directory.appendingPathComponent("media.m3u8"))
        #expect(errors.isEmpty, "ffprobe: \(errors)")
        expectStreams(streams, written, sourceLabel: "stalled media.m3u8")
    }

    @Test func videoOnlyStreamDecodes() throws {
        let written = try package(audio: false)
        defer { try? FileManager.default.removeItem(at: written.directory) }
        let (streams, errors) = try probe(written.directory.appendingPathComponent("media.m3u8"))
        #expect(errors.isEmpty, "ffprobe: \(errors)")
        expectStreams(streams, written, sourceLabel: "video-only media.m3u8")
    }

    /// An INDEPENDENT=YES part is a place a player may start (RFC 8216bis §4.4.4.9): with
    /// only the init segment before it, every one of its frames must decode. With 333 ms
    /// parts (9 frames) the IDR one second into each segment lands inside a part, so only
    /// segment starts are independent; with 334 ms parts (10 frames) every IDR opens one.
    @Test(arguments: [(333, 2), (334, 4)])
    func everyIndependentPartDecodesOnItsOwn(partMilliseconds: Int, independentParts: Int) throws {
        let written = try package(partTarget: .milliseconds(partMilliseconds))
        defer { try? FileManager.default.removeItem(at: written.directory) }
        let parts = written.packager.segments.flatMap(\.parts).filter(\.isIndependent)
        #expect(parts.count == independentParts)
        for part in parts {
            let url = written.directory.appendingPathComponent("alone\(part.number).mp4")
            try write(written.packager.initializationSegment + Array(part.bytes), to: url)
            let (streams, errors) = try probe(url)
            #expect(errors.isEmpty, "part \(part.number): \(errors)")
            let frames = Int(streams["nb_read_frames"]?.first ?? "") ?? -1
            let fed = Int((part.duration / .seconds(1) * 30).rounded())   // 30 frames per second
            #expect(frames == fed && fed >= 9, "part \(part.number) decoded \(frames) of \(fed) frames")
        }
    }
}
