import OnAirWire
import Testing

@testable import OnAirHLS

/// Byte layouts written out field by field from the ISO/IEC 14496-12, -14 and -15
/// syntax tables (each comment names the field), compared with what the writers emit.
@Suite("fMP4 box layouts (ISO/IEC 14496-12/14/15)")
struct BoxLayoutTests {
    static let unityMatrix = "00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000"

    @Test func boxWriterBackPatchesNestedSizes() {
        var writer = BoxWriter()
        writer.box("abcd") { outer in
            outer.write(UInt8(0xAA))
            outer.fullBox("efgh", version: 1, flags: 0x020304) { $0.write(UInt16(0xBBCC)) }
        }
        #expect(writer.bytes == hex("00000017 61626364 aa 0000000e 65666768 01 020304 bbcc"))
    }

    @Test func fileType() {
        #expect(FileTypeBox.fragmentedMP4.serialized() == hex("""
            0000001c 66747970 69736f36 00000000 69736f36 69736f35 6d703431
            """))
    }

    /// creation, modification, timescale 1000, duration; rate 1.0, volume 1.0, reserved;
    /// matrix; pre_defined[6]; next_track_ID.
    @Test func movieHeader() {
        #expect(MovieHeaderBox(timescale: 1000, nextTrackID: 3).serialized() == hex("""
            0000006c 6d766864 00000000
            00000000 00000000 000003e8 00000000
            00010000 0100 0000 00000000 00000000
            \(Self.unityMatrix)
            000000000000000000000000000000000000000000000000 00000003
            """))
    }

    @Test func trackHeaderOfVideoAndAudio() {
        #expect(TrackHeaderBox(trackID: 1, width: 640, height: 360, isAudio: false).serialized() == hex("""
            0000005c 746b6864 00000003 00000000 00000000 00000001 00000000 00000000
            0000000000000000 0000 0000 0000 0000 \(Self.unityMatrix) 02800000 01680000
            """))
        let audio = TrackHeaderBox(trackID: 2, isAudio: true).serialized()
        #expect(Array(audio[44..<46]) == [0x01, 0x00])   // volume 1.0 for sound
        #expect(Array(audio[84..<92]) == [UInt8](repeating: 0, count: 8))
    }

    @Test func mediaHeaderWithUndeterminedLanguage() {
        #expect(MediaHeaderBox(timescale: 90_000).serialized() == hex("""
            00000020 6d646864 00000000 00000000 00000000 00015f90 00000000 55c4 0000
            """))
    }

    @Test func handler() {
        #expect(HandlerBox.video.serialized() == hex("""
            0000002d 68646c72 00000000 00000000 76696465 000000000000000000000000
            566964656f48616e646c657200
            """))
    }

    @Test func trackExtends() {
        #expect(TrackExtendsBox(trackID: 2).serialized() == hex("""
            00000020 74726578 00000000 00000002 00000001 00000000 00000000 00000000
            """))
    }

    @Test func avcSampleEntry() throws {
        let record = hex("01 42c01e ff e1 0000 01 0000")
        let entry = try AVCSampleEntry(width: 640, height: 360, decoderConfiguration: record)
        #expect(entry.codecString == "avc1.42c01e")
        #expect(entry.serialized() == hex("""
            00000069 61766331 000000000000 0001 0000 0000 000000000000000000000000
            0280 0168 00480000 00480000 00000000 0001
            0000000000000000000000000000000000000000000000000000000000000000 0018 ffff
            00000013 61766343 0142c01effe1000001 0000
            """))
    }

    @Test func avcSampleEntryRefusesBadRecords() {
        #expect(throws: WireError.truncated) { try AVCSampleEntry(width: 1, height: 1, decoderConfiguration: [1, 2, 3]) }
        #expect(throws: WireError.self) { try AVCSampleEntry(width: 1, height: 1, decoderConfiguration: hex("02 42c01e ffe1 00")) }
        #expect(throws: WireError.self) { try AVCSampleEntry(width: 0, height: 1, decoderConfiguration: hex("01 42c01e ffe1 00")) }
    }

    /// ISO/IEC 14496-1 §7.2.6.5-7 descriptors with single-byte sizes: ES_Descriptor (03,
    /// 25 bytes) → DecoderConfigDescriptor (04, 17 bytes: OTI 0x40, stream type 5 << 2 | 1,
    /// buffer/max/avg zero) → DecoderSpecificInfo (05, the ASC 11 90), SLConfig (06, 02).
    @Test func elementaryStreamDescriptor() {
        #expect(ElementaryStreamDescriptorBox(decoderSpecificInfo: [0x11, 0x90]).serialized() == hex("""
            00000027 65736473 00000000
            03 19 0000 00
              04 11 40 15 000000 00000000 00000000
                05 02 1190
              06 01 02
            """))
    }

    @Test func descriptorSizesUseSevenBitsPerByte() {
        let payload = [UInt8](repeating: 7, count: 200)
        #expect(Array(ElementaryStreamDescriptorBox.descriptor(.decoderSpecificInfo, payload).prefix(3)) == [0x05, 0x81, 0x48])
        #expect(ElementaryStreamDescriptorBox.descriptor(.slConfig, [2]) == [0x06, 0x01, 0x02])
    }

    @Test func mp4aSampleEntry() {
        let entry = MP4AudioSampleEntry(config: AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 1))
        #expect(entry.serialized() == hex("""
            0000004b 6d703461 000000000000 0001 0000000000000000 0001 0010 0000 0000 bb800000
            00000027 65736473 00000000 03 19 0000 00 04 11 40 15 000000 00000000 00000000 05 02 1188 06 01 02
            """))
    }

    /// §8.8.4-8.8.8 and §8.8.12 with default-base-is-moof: data_offset = size of 'moof' +
    /// the 'mdat' header = 112 + 8.
    @Test func movieFragmentWithOneTrack() {
        let fragment = MovieFragment(sequenceNumber: 1, tracks: [
            TrackFragment(trackID: 1, baseMediaDecodeTime: 0, samples: [
                FragmentSample(duration: 3000, size: 4, flags: .sync),
                FragmentSample(duration: 3000, size: 2, flags: .nonSync),
            ], data: hex("aabbccdd eeff")),
        ])
        #expect(fragment.serialized() == hex("""
            00000070 6d6f6f66
              00000010 6d666864 00000000 00000001
              00000058 74726166
                00000010 74666864 00020000 00000001
                00000014 74666474 01000000 0000000000000000
                0000002c 7472756e 00000701 00000002 00000078
                  00000bb8 00000004 02000000
                  00000bb8 00000002 01010000
            0000000e 6d646174 aabbccddeeff
            """))
    }

    /// Two tracks: each data_offset points at that track's first byte in the 'mdat';
    /// a track without samples gets no 'traf'.
    @Test func movieFragmentOffsetsPointAtEachTracksData() throws {
        let video = TrackFragment(trackID: 1, baseMediaDecodeTime: 1 << 33,
                                  samples: [FragmentSample(duration: 3000, size: 3, flags: .sync)], data: [1, 2, 3])
        let audio = TrackFragment(trackID: 2, baseMediaDecodeTime: 96_000, samples: [
            FragmentSample(duration: 1024, size: 2, flags: .sync), FragmentSample(duration: 1024, size: 1, flags: .sync),
        ], data: [9, 8, 7])
        let empty = TrackFragment(trackID: 3, baseMediaDecodeTime: 0)
        let bytes = MovieFragment(sequenceNumber: 7, tracks: [video, empty, audio]).serialized()
        let walker = try BoxWalker(bytes)
        #expect(walker.all("moof/traf").count == 2)
        let runs = walker.runs(moofStart: 0)
        #expect(runs.map(\.trackID) == [1, 2])
        #expect(runs[0].baseMediaDecodeTime == 1 << 33)
        #expect(Array(bytes[runs[0].dataOffset..<runs[0].dataOffset + 3]) == [1, 2, 3])
        #expect(Array(bytes[runs[1].dataOffset..<runs[1].dataOffset + 3]) == [9, 8, 7])
        #expect(walker.uint32(at: walker.first("moof/mfhd")!.start + 12) == 7)
    }

    @Test func initializationSegmentTree() throws {
        let tracks = try HLSTrackConfiguration(
            video: AVCSampleEntry(width: 640, height: 360, decoderConfiguration: hex("01 42c01e ffe1 0000 01 0000")),
            audio: AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 2))
        let walker = try BoxWalker(tracks.initializationSegment().serialized())
        let trak = ["tkhd", "mdia", "mdia/mdhd", "mdia/hdlr", "mdia/minf"]
        let sampleTable = ["mdia/minf/dinf", "mdia/minf/dinf/dref", "mdia/minf/stbl", "mdia/minf/stbl/stsd"]
        let tables = ["mdia/minf/stbl/stts", "mdia/minf/stbl/stsc", "mdia/minf/stbl/stsz", "mdia/minf/stbl/stco"]
        let videoTrak = trak + ["mdia/minf/vmhd"] + sampleTable + ["mdia/minf/stbl/stsd/avc1"] + tables
        let audioTrak = trak + ["mdia/minf/smhd"] + sampleTable + ["mdia/minf/stbl/stsd/mp4a"] + tables
        let expected = ["ftyp", "moov", "moov/mvhd", "moov/trak"] + videoTrak.map { "moov/trak/" + $0 }
            + ["moov/trak"] + audioTrak.map { "moov/trak/" + $0 } + ["moov/mvex", "moov/mvex/trex", "moov/mvex/trex"]
        #expect(walker.paths == expected)
        #expect(walker.uint32(at: walker.first("moov/mvhd")!.start + 8 + 4 + 92) == 3)   // next_track_ID
        #expect(tracks.codecs == "avc1.42c01e,mp4a.40.2")
    }
}
