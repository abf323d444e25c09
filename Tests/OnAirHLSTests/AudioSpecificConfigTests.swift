import OnAirWire
import Testing

@testable import OnAirHLS

@Suite("AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1)")
struct AudioSpecificConfigTests {
    /// objectType 2 (00010), frequency index 3 = 48 kHz (0011), channels 2 (0010), three
    /// zero GASpecificConfig flags: 0001 0001 1001 0000.
    @Test func aacLC48kStereo() throws {
        let config = try AudioSpecificConfig(parsing: hex("1190"))
        #expect(config == AudioSpecificConfig(audioObjectType: 2, sampleRate: 48_000, channelConfiguration: 2))
        #expect(config.bytes == hex("1190"))
        #expect(config.codecString == "mp4a.40.2")
        #expect(config.channelCount == 2)
    }

    @Test func aacLC44100Mono() throws {
        // 00010 0100 0001 000 → 0001 0010 0000 1000
        let config = try AudioSpecificConfig(parsing: hex("1208"))
        #expect(config.sampleRate == 44_100)
        #expect(config.channelConfiguration == 1)
        #expect(config.bytes == hex("1208"))
    }

    /// samplingFrequencyIndex 0xF: the rate follows in 24 bits.
    @Test func explicitSamplingFrequencyRoundTrips() throws {
        let config = AudioSpecificConfig(sampleRate: 50_000, channelConfiguration: 2)
        // 00010 1111 000000001100001101010000 0010 000: 40 bits, no padding
        #expect(config.bytes == hex("17 80 61 a8 10"))
        #expect(try AudioSpecificConfig(parsing: config.bytes) == config)
    }

    @Test func sevenPointOneHasEightChannels() {
        #expect(AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 7).channelCount == 8)
    }

    @Test func refusals() {
        #expect(throws: WireError.truncated) { try AudioSpecificConfig(parsing: []) }
        #expect(throws: WireError.truncated) { try AudioSpecificConfig(parsing: [0x11]) }
        #expect(throws: WireError.self) { try AudioSpecificConfig(parsing: hex("f8 00")) }    // object type 31
        #expect(throws: WireError.self) { try AudioSpecificConfig(parsing: hex("06 80")) }    // index 13 reserved
        #expect(throws: WireError.self) { try AudioSpecificConfig(parsing: hex("00 00")) }    // object type 0
    }

    @Test func trackConfigurationRefusals() throws {
        #expect(throws: WireError.self) { try HLSTrackConfiguration(video: nil, audio: nil) }
        #expect(throws: WireError.self) {
            try HLSTrackConfiguration(video: nil, audio: AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 0))
        }
    }
}
