import Foundation
import Testing

@testable import OnAirTestPattern

@Suite("TestPatternTone: 1 kHz at -12 dBFS for the first 100 ms of every wall-clock second")
struct TestPatternToneTests {
    let tone = TestPatternTone()

    func fill(frames: Int, from time: Int64) -> [Int16] {
        var samples = [Int16](repeating: 0x7777, count: 2 * frames)
        samples.withUnsafeMutableBufferPointer { tone.fill($0.baseAddress!, frames: frames, firstSampleTime: time) }
        return samples
    }

    @Test("a second: 4800 beeping samples that follow sin(2 pi 1000 t / 48000), then exact silence; left == right")
    func oneSecond() {
        let secondStart = TestPatternTone.sampleTime(unixMilliseconds: 1_700_000_001_000)
        #expect(secondStart % 48_000 == 0)
        let samples = fill(frames: 48_000, from: secondStart)
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
        #expect(left == right)

        let beep = left[0..<4_800], silence = left[4_800...]
        #expect(silence.allSatisfy { $0 == 0 })
        #expect(beep.max() == TestPatternTone.amplitude && beep.min() == -TestPatternTone.amplitude)
        #expect(beep.filter { $0 != 0 }.count == 4_600)  // zero exactly at the 200 half periods
        // Within one step of rounding (some samples are exactly x.5: sin(pi/6) = 1/2).
        let worst = beep.enumerated().map { n, value in
            abs(Double(value) - 8_231 * sin(2 * Double.pi * 1_000 * Double(n) / 48_000))
        }.max()!
        #expect(worst <= 0.5 + 1e-6)
        // -12 dBFS: the peak is a quarter of full scale (20 log10(8231/32767) = -12.0 dB).
        #expect(abs(20 * log10(Double(TestPatternTone.amplitude) / 32_767) + 12) < 0.01)
        // 1 kHz: 100 positive-going zero crossings in 100 ms.
        let crossings = (1..<4_800).filter { beep[$0 - 1] <= 0 && beep[$0] > 0 }.count
        #expect(crossings == 100)
    }

    @Test("buffers join seamlessly: any split equals one big fill, whatever the start time",
          arguments: [Int64(0), TestPatternTone.sampleTime(unixMilliseconds: 1_700_000_000_123), -12_345, 47_990])
    func continuity(_ start: Int64) {
        let total = 3 * 48_000 + 777
        let whole = fill(frames: total, from: start)
        #expect(whole.contains { $0 != 0 } && whole.contains { $0 == 0 })
        for splits in [[960, 960, 481], [1, 4_799, 2], [4_800, 43_200, 17], [48_000], [333, 20_000, 7, 61_111]] {
            var pieces: [Int16] = []
            var time = start, frames = 0, index = 0
            while frames < total {
                let count = min(splits[index % splits.count], total - frames)
                pieces += fill(frames: count, from: time)
                time += Int64(count)
                frames += count
                index += 1
            }
            #expect(pieces == whole, "splits \(splits)")
        }
        // And each sample is the signal at its own time.
        for frame in Swift.stride(from: 0, to: total, by: 97) {
            #expect(whole[2 * frame] == tone.sample(at: start + Int64(frame)))
        }
    }

    @Test("isBeep: [0, 4800) of every second, also before 1970")
    func beepWindow() {
        for (time, beeps) in [(Int64(0), true), (4_799, true), (4_800, false), (47_999, false), (48_000, true),
                              (-1, false), (-48_000, true), (-43_201, true), (-43_200, false),
                              (TestPatternTone.sampleTime(unixMilliseconds: 1_700_000_000_099), true),
                              (TestPatternTone.sampleTime(unixMilliseconds: 1_700_000_000_100), false)] {
            #expect(TestPatternTone.isBeep(sampleTime: time) == beeps, "\(time)")
        }
        #expect(TestPatternTone.sampleTime(unixMilliseconds: 1_000) == 48_000)
    }

    @Test("zero frames writes nothing")
    func empty() {
        var samples: [Int16] = [7, 7]
        samples.withUnsafeMutableBufferPointer { tone.fill($0.baseAddress!, frames: 0, firstSampleTime: 0) }
        #expect(samples == [7, 7])
    }
}
