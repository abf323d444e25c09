import Dispatch
import Foundation
import Logging
import OnAirHLS
import Testing
@testable import OnAirRelay

/// Recording a stream to disk: the file is the packager's init segment and fragments as
/// published (a fragmented MP4 playable at every moment), closed by an 'mfra' index; a disk
/// that falls behind costs fragments, never the media loop. Real files in a temp directory;
/// decoding such a file with ffprobe is proven by Tests/Interop/test_hls_recording.py.
@Suite("HLS: stream recorder")
struct StreamRecorderTests {
    let logger = Logger(label: "recorder-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString)").path
    }

    /// A video-only packager (the container does not look inside samples).
    func packager() throws -> LLHLSPackager {
        let record: [UInt8] = [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE1, 0x00, 0x04, 0x67, 0x42, 0xC0, 0x1E, 0x01, 0x00, 0x02, 0x68, 0xCE]
        let tracks = try HLSTrackConfiguration(video: AVCSampleEntry(width: 64, height: 64, decoderConfiguration: record), audio: nil)
        return try LLHLSPackager(configuration: LLHLSConfiguration(partTarget: .milliseconds(333), segmentTarget: .seconds(1)),
                                 tracks: tracks)
    }

    /// Frame `index` of a 30 fps stream with an IDR every 30 frames, `size` bytes.
    func frame(_ index: Int, size: Int = 1_000) -> VideoAccessUnit {
        VideoAccessUnit(data: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size), timestamp: Int64(index) * 3000,
                        isKeyframe: index % 30 == 0)
    }

    func published(_ events: [LLHLSPackager.Event], _ packager: LLHLSPackager) -> [HLSPartialSegment] {
        events.compactMap { event in
            guard case .partPublished(let number, _) = event, case .available(let part) = packager.part(number: number) else { return nil }
            return part
        }
    }

    func files(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mp4") }.sorted()
    }

    @Test("file names: room, then the UTC start")
    func baseName() {
        #expect(StreamRecorder.baseName(room: "42", unixSeconds: 0) == "42_19700101T000000Z")
        #expect(StreamRecorder.baseName(room: "lobby.b-2", unixSeconds: 1_700_000_000) == "lobby.b-2_20231114T221320Z")
    }

    @Test("the recording is the init segment, every fragment in order, then an mfra indexing the IDR fragments")
    func wholeStream() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var packager = try packager()
        let writer = RecordingWriter()
        let recorder = StreamRecorder(directory: directory, room: "42", startedAtUnixSeconds: 1_700_000_000,
                                      initializationSegment: packager.initializationSegment, videoTrackID: 1,
                                      queueLimit: 1 << 20, writer: writer, logger: logger)
        var parts: [HLSPartialSegment] = []
        for index in 0..<95 {
            let new = published(try packager.append(frame(index)), packager)
            for part in new { #expect(recorder.append(part)) }
            parts += new
        }
        let last = published(packager.finish(), packager)
        for part in last { recorder.append(part) }
        parts += last
        recorder.finish()
        await writer.drain()

        #expect(try files(in: directory) == ["42_20231114T221320Z.mp4"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/42_20231114T221320Z.mp4")))
        let body = packager.initializationSegment + parts.flatMap { Array($0.bytes) }
        #expect(parts.count >= 9 && recorder.droppedFragments == 0)
        #expect(Array(bytes.prefix(body.count)) == body, "init + fragments, unchanged and in order")
        let boxes = TopLevelBoxes(bytes)
        #expect(boxes.types.first == "ftyp" && boxes.types.last == "mfra")
        #expect(boxes.types.filter { $0 == "moof" }.count == parts.count)

        // mfra: its mfro repeats its size; each tfra entry names a moof whose video tfdt is the entry's time.
        let mfra = try #require(boxes.boxes.last)
        #expect(mfra.start + mfra.size == bytes.count)
        #expect(TopLevelBoxes.uint32(bytes, at: bytes.count - 4) == UInt32(mfra.size))
        let entries = TopLevelBoxes.tfraEntries(bytes, mfra: mfra)
        let keyframeParts = parts.filter(\.isIndependent)
        #expect(entries.count == keyframeParts.count && entries.count == 4)  // IDRs at frames 0, 30, 60, 90
        for (entry, part) in zip(entries, keyframeParts) {
            #expect(entry.trackID == 1 && entry.time == UInt64(part.startTicks))
            #expect(TopLevelBoxes.type(bytes, at: Int(entry.moofOffset)) == "moof")
            #expect(Array(bytes[Int(entry.moofOffset)..<Int(entry.moofOffset) + part.bytes.count]) == Array(part.bytes))
        }
    }

    @Test("a second recording of the same room in the same second gets its own file")
    func noOverwrite() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = RecordingWriter()
        let initSegment = try packager().initializationSegment
        for _ in 0..<2 {
            StreamRecorder(directory: directory, room: "7", startedAtUnixSeconds: 0, initializationSegment: initSegment,
                           videoTrackID: 1, queueLimit: 1 << 20, writer: writer, logger: logger).finish()
        }
        await writer.drain()
        #expect(try files(in: directory) == ["7_19700101T000000Z.mp4", "7_19700101T000000Z_2.mp4"])
    }

    @Test("a disk that falls behind costs fragments up to the next IDR fragment, never a wait")
    func slowDisk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var packager = try packager()
        let writer = RecordingWriter()
        // Parts of 10 frames x 10 kB: the queue takes the init segment and one part, not two.
        let recorder = StreamRecorder(directory: directory, room: "slow", startedAtUnixSeconds: 0,
                                      initializationSegment: packager.initializationSegment, videoTrackID: 1,
                                      queueLimit: 150_000, writer: writer, logger: logger)
        let disk = DispatchSemaphore(value: 0)
        writer.queue.async { disk.wait() }   // the disk stalls
        var written: [HLSPartialSegment] = []
        var outcomes: [(independent: Bool, kept: Bool)] = []
        var index = 0
        while outcomes.count < 4 {           // while stalled: one part queued, the rest dropped
            for part in published(try packager.append(frame(index, size: 10_000)), packager) {
                let kept = recorder.append(part)
                outcomes.append((part.isIndependent, kept))
                if kept { written.append(part) }
            }
            index += 1
        }
        #expect(outcomes.map(\.kept) == [true, false, false, false])
        disk.signal()
        await writer.drain()                 // caught up
        var afterStall: [(independent: Bool, kept: Bool)] = []
        while index < 95 {
            for part in published(try packager.append(frame(index, size: 10_000)), packager) {
                let kept = recorder.append(part)
                afterStall.append((part.isIndependent, kept))
                if kept { written.append(part) }
                await writer.drain()
            }
            index += 1
        }
        // Dropping goes on until a part starts with an IDR; from there on everything is kept.
        let resume = try #require(afterStall.firstIndex { $0.kept })
        #expect(afterStall[resume].independent && afterStall[..<resume].allSatisfy { !$0.kept })
        #expect(afterStall[resume...].allSatisfy { $0.kept })
        #expect(recorder.droppedFragments == 3 + resume)
        recorder.finish()
        await writer.drain()

        let name = try #require(try files(in: directory).first)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
        let body = packager.initializationSegment + written.flatMap { Array($0.bytes) }
        #expect(Array(bytes.prefix(body.count)) == body)
        #expect(TopLevelBoxes(bytes).types.filter { $0 == "moof" }.count == written.count)
    }
}

/// A reader of a file's top-level boxes, independent of the writer (ISO/IEC 14496-12 §4.2).
struct TopLevelBoxes {
    struct Box { var type: String; var start: Int; var size: Int }
    var boxes: [Box] = []
    var types: [String] { boxes.map(\.type) }

    init(_ bytes: [UInt8]) {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(Self.uint32(bytes, at: offset))
            guard size >= 8, offset + size <= bytes.count else { break }
            boxes.append(Box(type: Self.type(bytes, at: offset), start: offset, size: size))
            offset += size
        }
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        UInt64(uint32(bytes, at: offset)) << 32 | UInt64(uint32(bytes, at: offset + 4))
    }

    static func type(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
    }

    /// §8.8.10 'tfra' version 1 with one-byte traf/trun/sample numbers, inside `mfra`.
    static func tfraEntries(_ bytes: [UInt8], mfra: Box) -> [(trackID: UInt32, time: UInt64, moofOffset: UInt64)] {
        var entries: [(UInt32, UInt64, UInt64)] = []
        var offset = mfra.start + 8
        while offset < mfra.start + mfra.size {
            let size = Int(uint32(bytes, at: offset))
            if type(bytes, at: offset) == "tfra", bytes[offset + 8] == 1 {
                let trackID = uint32(bytes, at: offset + 12)
                let count = Int(uint32(bytes, at: offset + 20))
                for index in 0..<count {
                    let entry = offset + 24 + index * 19
                    entries.append((trackID, uint64(bytes, at: entry), uint64(bytes, at: entry + 8)))
                }
            }
            offset += max(size, 8)
        }
        return entries
    }
}
