import Foundation
import OnAirHLS
import Testing

/// The 'mfra' index that closes a recording (ISO/IEC 14496-12 §8.8.9-8.8.11): its layout
/// read back by our box walker, and a recording (init + every part + mfra) read by ffmpeg
/// with the index in use (`-use_mfra_for pts`): every frame, and the right pictures after a seek.
@Suite("mfra: the random access index of a recording", .serialized)
struct RandomAccessIndexTests {
    @Test("layout: tfra version 1 with 64-bit times and offsets, one-byte numbers; mfro repeats the size")
    func layout() throws {
        let index = MovieFragmentRandomAccessBox(tracks: [
            .init(trackID: 1, entries: [.init(time: 0, moofOffset: 1_000), .init(time: 180_000, moofOffset: 0x1_0000_0000)]),
            .init(trackID: 2, trafNumber: 2, entries: []),
        ])
        let bytes = index.serialized()
        let walker = try BoxWalker(bytes)
        #expect(walker.paths == ["mfra"])
        // mfra's children (BoxWalker does not descend into it): tfra, tfra, mfro.
        let tfra1 = 8, tfra1Size = 8 + 4 + 12 + 2 * 19
        #expect(walker.uint32(at: tfra1) == UInt32(tfra1Size))
        #expect(Array(bytes[tfra1 + 4..<tfra1 + 8]) == Array("tfra".utf8) && bytes[tfra1 + 8] == 1)
        #expect(walker.uint32(at: tfra1 + 12) == 1 && walker.uint32(at: tfra1 + 16) == 0 && walker.uint32(at: tfra1 + 20) == 2)
        #expect(walker.uint64(at: tfra1 + 24) == 0 && walker.uint64(at: tfra1 + 32) == 1_000)
        #expect(Array(bytes[tfra1 + 40..<tfra1 + 43]) == [1, 1, 1])
        #expect(walker.uint64(at: tfra1 + 43) == 180_000 && walker.uint64(at: tfra1 + 51) == 0x1_0000_0000)
        let tfra2 = tfra1 + tfra1Size
        #expect(walker.uint32(at: tfra2) == 24 && walker.uint32(at: tfra2 + 12) == 2 && walker.uint32(at: tfra2 + 20) == 0)
        let mfro = tfra2 + 24
        #expect(Array(bytes[mfro + 4..<mfro + 8]) == Array("mfro".utf8) && mfro + 16 == bytes.count)
        #expect(walker.uint32(at: mfro + 12) == UInt32(bytes.count) && walker.uint32(at: 0) == UInt32(bytes.count))
    }

    @Test("ffmpeg reads a recording through its index: every frame decodes, a seek decodes the right pictures")
    func ffmpegUsesTheIndex() throws {
        let media = try TestMedia.shared.get()
        var packager = try LLHLSPackager(configuration: LLHLSConfiguration(partTarget: .milliseconds(333)),
                                         tracks: try media.trackConfiguration(audio: true))
        _ = try media.feed(&packager, audio: true)
        _ = packager.finish()
        var file = packager.initializationSegment
        var entries: [MovieFragmentRandomAccessBox.Entry] = []
        for part in packager.segments.flatMap(\.parts) {
            if part.isIndependent && part.leadSampleCount > 0 {
                entries.append(.init(time: UInt64(part.startTicks), moofOffset: UInt64(file.count)))
            }
            file += part.bytes
        }
        #expect(entries.count >= 2)
        file += MovieFragmentRandomAccessBox(tracks: [.init(trackID: packager.tracks.videoTrackID, entries: entries)]).serialized()
        let directory = try makeTemporaryDirectory("mfra")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("recording.mp4")
        try write(file, to: url)

        let probe = try run("ffprobe", ["-v", "error", "-use_mfra_for", "pts", "-count_frames", "-select_streams", "v:0",
                                        "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", url.path])
        #expect(probe.status == 0 && probe.stderr.isEmpty, "ffprobe: \(probe.stderr)")
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(media.pictures.count))
        // Seek to the second IDR with the index in use: the pictures decoded from there are
        // exactly those a full decode has at that time (framemd5 hashes each picture).
        // FFmpeg 5.1's mfra mode assumes DASH-style files (every fragment starts with a
        // random access point) and may feed its decoder a P-frame first ("Missing reference
        // picture"); the pictures it outputs are still the right ones, so only those are compared.
        let idr = Double(entries[1].time) / 90_000
        let full = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"])
        #expect(full.status == 0 && full.stderr.isEmpty, "\(full.stderr)")
        func hashes(_ text: String) -> [Substring] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        }
        let expected = Array(hashes(full.stdout).dropFirst(Int((idr * 30).rounded())).prefix(5))
        #expect(expected.count == 5)
        for mode in [["-use_mfra_for", "pts"], []] {
            let seek = try run("ffmpeg", ["-nostdin", "-v", "error"] + mode + ["-ss", "\(idr)", "-i", url.path,
                                          "-map", "0:v", "-frames:v", "5", "-f", "framemd5", "-"])
            #expect(seek.status == 0 && hashes(seek.stdout) == expected, "\(mode): \(seek.stderr)")
            if mode.isEmpty { #expect(seek.stderr.isEmpty, "\(seek.stderr)") }
        }
    }
}
