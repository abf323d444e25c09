import CLiveFFmpeg
import Foundation
import Testing
@testable import OnAirTranscode

/// Round trip through real codecs: ffmpeg's CLI makes Opus (libopus) from a 440 Hz tone, we
/// transcode packet by packet, then libavcodec's AAC decoder must hear the same tone.
@Suite struct OpusToAACTranscoderTests {
    @Test func toneSurvivesTranscoding() throws {
        let packets = try OggOpusFixture.packets(toneHz: 440, seconds: 2)
        #expect(packets.count >= 95)  // 20 ms frames
        let transcoder = try OpusToAACTranscoder()
        var frames: [AACFrame] = []
        for packet in packets { frames += try transcoder.transcode(opusPacket: packet.bytes, timestamp: packet.pts) }
        frames += try transcoder.finish()
        // 2 s at 48 kHz = 93.75 frames of 1024; the encoder adds its priming frame.
        #expect((93...96).contains(frames.count), "got \(frames.count) AAC frames")
        #expect(transcoder.audioSpecificConfig.count >= 2)
        // AudioSpecificConfig: object type 2 (AAC LC), frequency index 3 (48 kHz), 2 channels.
        let asc = transcoder.audioSpecificConfig
        #expect(asc[0] >> 3 == 2)
        #expect(((asc[0] & 0x07) << 1) | (asc[1] >> 7) == 3)
        #expect((asc[1] >> 3) & 0x0F == 2)
        let pcm = try AACDecoderFixture.decode(frames, audioSpecificConfig: asc)
        let frequency = AACDecoderFixture.zeroCrossingFrequency(pcm.dropFirst(4800), sampleRate: 48_000)
        #expect(abs(frequency - 440) < 10, "heard \(frequency) Hz")
        // Timestamps follow the input and advance by exactly one frame.
        for (a, b) in zip(frames, frames.dropFirst()) { #expect(b.pts - a.pts == 1024) }
    }

    @Test func gapsAreFilledWithSilenceAndGarbageIsSurvived() throws {
        let packets = try OggOpusFixture.packets(toneHz: 440, seconds: 1)
        let transcoder = try OpusToAACTranscoder()
        var frames: [AACFrame] = []
        for (index, packet) in packets.enumerated() where index % 10 != 5 {  // lose 10%
            frames += try transcoder.transcode(opusPacket: packet.bytes, timestamp: packet.pts)
        }
        frames += try transcoder.transcode(opusPacket: [0xFF, 0x00, 0x13], timestamp: packets.last!.pts + 960)
        frames += try transcoder.transcode(opusPacket: Array(repeating: 0xAB, count: 300), timestamp: packets.last!.pts + 1920)
        #expect(transcoder.silenceInserted >= 960 * 4)
        // Lost packets become silence, so the timeline has no hole: ~1 s of frames.
        #expect(frames.count >= 44)
        for (a, b) in zip(frames, frames.dropFirst()) { #expect(b.pts - a.pts == 1024) }
    }
}
