import Foundation
import OnAirWire
import Testing

@testable import OnAirPayload
import OnAirTestSupport

/// The avcC box payload compared byte for byte with what FFmpeg's MP4 muxer writes for
/// the same parameter sets.
@Suite("AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1)")
struct AVCDecoderConfigurationRecordTests {
    @Test("built from SPS + PPS, it equals FFmpeg's avcC; parsing FFmpeg's gives the same fields",
          arguments: [("baseline", "42C01E"), ("main", "4D401E"), ("high", "64001E")])
    func matchesFFmpeg(_ profile: String, _ codecSuffix: String) throws {
        let url = MediaTools.directory.appendingPathComponent("\(UUID().uuidString).mp4")
        try MediaTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30",
                                      "-frames:v", "2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast",
                                      "-profile:v", profile, "-f", "mp4", url.path])
        let file = try MediaTools.bytes(of: url)
        let ffmpegRecord = try #require(Self.avcC(in: file))

        let parsed = try AVCDecoderConfigurationRecord(parsing: ffmpegRecord)
        #expect(parsed.lengthSize == 4)
        #expect(parsed.sequenceParameterSets.count == 1 && parsed.pictureParameterSets.count == 1)
        let sps = try H264SPS(nalUnit: parsed.sequenceParameterSets[0])
        #expect(parsed.profileIndication == sps.profileIdc && parsed.levelIndication == sps.levelIdc)
        #expect(parsed.codecString == "avc1." + codecSuffix)
        #expect((parsed.highProfileFields != nil) == (profile == "high"))

        let built = try AVCDecoderConfigurationRecord(sps: parsed.sequenceParameterSets[0], pps: parsed.pictureParameterSets[0])
        #expect(built == parsed)
        #expect(built.serialize() == ffmpegRecord)
    }

    @Test("hand-checked layout: reserved bits set, counts, 16-bit lengths, high profile tail")
    func layout() throws {
        let record = AVCDecoderConfigurationRecord(
            profileIndication: 100, profileCompatibility: 0, levelIndication: 31,
            sequenceParameterSets: [hex("67 64 00 1f")], pictureParameterSets: [hex("68 ee")],
            highProfileFields: .init(chromaFormat: 1, bitDepthLumaMinus8: 0, bitDepthChromaMinus8: 2))
        #expect(record.serialize() == hex("01 64 00 1f ff e1 0004 6764001f 01 0002 68ee fd f8 fa 00"))
        #expect(try AVCDecoderConfigurationRecord(parsing: record.serialize()) == record)
        #expect(record.codecString == "avc1.64001F")
        let twoByte = AVCDecoderConfigurationRecord(profileIndication: 66, profileCompatibility: 0xE0, levelIndication: 30,
                                                    lengthSize: 2, sequenceParameterSets: [], pictureParameterSets: [])
        #expect(twoByte.serialize() == hex("01 42 e0 1e fd e0 00"))
        #expect(twoByte.codecString == "avc1.42E01E")
    }

    @Test("truncations, a wrong version, 3-byte lengths and a non-PPS throw; random bytes never trap")
    func hostile() throws {
        let valid = hex("01 64 00 1f ff e1 0004 6764001f 01 0002 68ee fd f8 f8 00")
        for length in 0..<valid.count - 4 {
            #expect(throws: WireError.self) { try AVCDecoderConfigurationRecord(parsing: Array(valid.prefix(length))) }
        }
        #expect(throws: WireError.self) { try AVCDecoderConfigurationRecord(parsing: [0x02] + valid.dropFirst()) }
        var threeByte = valid
        threeByte[4] = 0xFE
        #expect(throws: WireError.self) { try AVCDecoderConfigurationRecord(parsing: threeByte) }
        #expect(throws: WireError.self) { try AVCDecoderConfigurationRecord(sps: H264SPSTests.handcrafted(), pps: hex("65 00")) }
        var rng = SplitMix64(seed: 31)
        for _ in 0..<5000 {
            let bytes = [UInt8(1)] + (0..<Int.random(in: 0...30, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? AVCDecoderConfigurationRecord(parsing: bytes)
        }
    }

    /// The payload of the first `avcC` box in an MP4 file (its size precedes its type).
    static func avcC(in file: [UInt8]) -> [UInt8]? {
        let type = Array("avcC".utf8)
        guard let at = (4..<max(4, file.count - 4)).first(where: { Array(file[$0..<$0 + 4]) == type }) else { return nil }
        let size = file[at - 4..<at].reduce(0) { $0 << 8 | Int($1) }
        guard size >= 8, at - 4 + size <= file.count else { return nil }
        return Array(file[at + 4..<at - 4 + size])
    }
}
