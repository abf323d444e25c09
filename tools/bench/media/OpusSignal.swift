import Foundation
import OnAirMedia
import OnAirTestPattern

/// The audio the Opus benchmark encodes, as 20 ms stereo frames generated ahead (so the timed
/// loop measures the encoder, not the generator).
enum OpusSignal: String, CaseIterable {
    /// The test pattern's audio: a 1 kHz beep for 100 ms of every second, silence otherwise
    /// (what `broadcast start` sends by default).
    case tone
    /// Continuous tones, different per channel (440 Hz left, 554 Hz right) at -12 dBFS: a
    /// steady musical signal.
    case sine
    /// Independent white noise per channel at -6 dBFS peak: the hardest input for an audio
    /// coder (nothing to predict, every band busy).
    case noise

    var label: String {
        switch self {
        case .tone: "test tone (1 kHz beep 100 ms/s)"
        case .sine: "stereo sine 440/554 Hz"
        case .noise: "white noise, stereo"
        }
    }

    /// `frames` frames of 960 interleaved stereo samples, back to back.
    func samples(frames: Int) -> [Int16] {
        let perFrame = OpusAudioEncoder.frameSamples
        var samples = [Int16](repeating: 0, count: frames * perFrame * 2)
        switch self {
        case .tone:
            // From a wall-clock second boundary, as the pattern's own clock would be.
            samples.withUnsafeMutableBufferPointer { buffer in
                TestPatternTone().fill(buffer.baseAddress!, frames: frames * perFrame, firstSampleTime: 0)
            }
        case .sine:
            let amplitude = 8_231.0
            for index in 0..<(frames * perFrame) {
                let time = Double(index) / Double(OpusAudioEncoder.sampleRate)
                samples[2 * index] = Int16((amplitude * sin(2 * .pi * 440 * time)).rounded())
                samples[2 * index + 1] = Int16((amplitude * sin(2 * .pi * 554 * time)).rounded())
            }
        case .noise:
            // xorshift64*: fixed seed, so every run encodes the same noise.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for index in samples.indices {
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                let random = state &* 0x2545_F491_4F6C_DD1D
                samples[index] = Int16(truncatingIfNeeded: Int64(random >> 48) - 32_768) / 2
            }
        }
        return samples
    }
}
