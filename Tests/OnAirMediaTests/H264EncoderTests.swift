import OnAirPayload
import Testing

@testable import OnAirMedia

@Suite("H264Encoder (libx264, live settings)")
struct H264EncoderTests {
    private func gray(_ frame: VideoFrameBuffer, shade: UInt8) {
        frame.luma.update(repeating: shade, count: frame.lumaStride * frame.height)
        frame.chromaU.update(repeating: 128, count: frame.chromaStride * frame.height / 2)
        frame.chromaV.update(repeating: 128, count: frame.chromaStride * frame.height / 2)
    }

    @Test("every frame comes out of its own encode call; IDRs carry SPS and PPS; a forced IDR is an IDR")
    func zeroLatencyWithHeaders() throws {
        let settings = H264EncoderSettings(width: 320, height: 240, framesPerSecond: 30, bitrate: 300_000, gop: 10)
        let encoder = try H264Encoder(settings)
        let frame = VideoFrameBuffer(width: 320, height: 240)
        var keyframes: [Int] = []
        for index in 0..<25 {
            gray(frame, shade: UInt8(16 + index * 8))
            frame.timestamp90kHz = Int64(index * 3000)
            let encoded = try #require(try encoder.encode(frame, forceKeyframe: index == 17))
            #expect(encoded.timestamp90kHz == Int64(index * 3000), "zerolatency: no reordering, no delay")
            let types = encoded.nalUnits.map { H264NALUnitType($0[0]) }
            if encoded.isKeyframe {
                keyframes.append(index)
                #expect(types.first == .sps && types.dropFirst().first == .pps, "SPS/PPS repeated before the IDR")
                #expect(types.contains(.idrSlice))
            } else {
                #expect(!types.contains(.idrSlice) && !types.contains(.sps))
            }
        }
        #expect(keyframes == [0, 10, 17], "GOP of 10, the GOP restarting after the forced IDR")
    }

    @Test("the SPS says Constrained Baseline at the level we asked for, and the picture size")
    func spsMatchesSettings() throws {
        var settings = H264EncoderSettings(width: 1280, height: 720, framesPerSecond: 30, bitrate: 1_000_000, gop: 30)
        #expect(settings.minimumLevelIDC == 31)
        settings.levelIDC = settings.minimumLevelIDC
        let encoder = try H264Encoder(settings)
        let frame = VideoFrameBuffer(width: 1280, height: 720)
        gray(frame, shade: 100)
        let encoded = try #require(try encoder.encode(frame, forceKeyframe: false))
        let sps = try #require(encoded.nalUnits.first { ($0[0] & 0x1F) == 7 })
        let parsed = try H264SPS(nalUnit: Array(sps))
        #expect(parsed.profileIdc == 66 && parsed.levelIdc == 31)
        #expect(parsed.width == 1280 && parsed.height == 720)
        #expect(parsed.constraintSet(1), "constraint_set1_flag: Constrained Baseline (42e0..)")
    }

    @Test("level table: 1080p30 needs 4.0, 360p30 3.0")
    func levels() {
        #expect(H264EncoderSettings(width: 1920, height: 1080, framesPerSecond: 30, bitrate: 1, gop: 1).minimumLevelIDC == 40)
        #expect(H264EncoderSettings(width: 640, height: 360, framesPerSecond: 30, bitrate: 1, gop: 1).minimumLevelIDC == 30)
    }

    @Test("reconfigure changes the bitrate the encoder aims at")
    func reconfigure() throws {
        let encoder = try H264Encoder(H264EncoderSettings(width: 320, height: 240, framesPerSecond: 30, bitrate: 800_000, gop: 300))
        encoder.reconfigure(bitrate: 200_000)
        #expect(encoder.settings.bitrate == 200_000)
    }

    @Test("an unknown preset is refused with a message naming the valid ones")
    func badPreset() {
        #expect(throws: H264EncoderError.self) {
            try H264Encoder(H264EncoderSettings(width: 320, height: 240, framesPerSecond: 30, bitrate: 1, gop: 1, preset: "warp"))
        }
    }
}
