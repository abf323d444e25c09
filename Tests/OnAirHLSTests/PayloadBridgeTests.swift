import OnAirPayload
import Testing

@testable import OnAirHLS

/// From OnAirPayload's depacketizer output to the packager, on x264's real parameter sets.
@Suite("OnAirPayload bridge")
struct PayloadBridgeTests {
    @Test func sampleEntryFromSPSAndPPS() throws {
        let media = try TestMedia.shared.get()
        let entry = try AVCSampleEntry(sps: media.sps, pps: media.pps)
        #expect(entry.width == 640 && entry.height == 360)
        // The test's own record builder and OnAirPayload's agree byte for byte (Baseline:
        // no high-profile tail).
        #expect(entry.decoderConfiguration == media.avcDecoderConfigurationRecord)
        #expect(entry.codecString == "avc1.42c01e")
    }

    @Test func accessUnitsBecomeAVCCSamples() throws {
        let media = try TestMedia.shared.get()
        for (index, nalUnits) in media.pictureNALUnits.prefix(40).enumerated() {
            let unit = H264AccessUnit(timestamp: UInt32(index * 3000), nalUnits: nalUnits,
                                      isKeyframe: media.pictures[index].isKeyframe)
            let input = VideoAccessUnit(unit, timestamp: 1 << 40 + Int64(index) * 3000)
            #expect(input.data == media.pictures[index].avcc)
            #expect(input.isKeyframe == (index % 30 == 0))
            #expect(input.timestamp == 1 << 40 + Int64(index) * 3000)
        }
    }

    @Test func badParameterSetsAreRefused() {
        #expect(throws: (any Error).self) { try AVCSampleEntry(sps: [0x67], pps: [0x68, 0xCE]) }
        #expect(throws: (any Error).self) { try AVCSampleEntry(sps: [], pps: []) }
    }
}
