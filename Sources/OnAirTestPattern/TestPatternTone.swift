#if canImport(Glibc)
import Glibc  // sin, for the one-period table built in init
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The test pattern's audio: 48 kHz interleaved stereo 16-bit PCM that beeps 1 kHz at
/// -12 dBFS during the first 100 ms of every wall-clock second and is silent otherwise.
///
/// The signal is a function of the absolute sample time `t` (Unix milliseconds x 48):
/// it beeps when `t mod 48000 < 4800`, with the sine's phase taken from `t` too. So
/// consecutive buffers join without a click whatever their sizes, and a viewer who finds a
/// beep's onset in the received audio knows it left the broadcaster at a whole second,
/// comparable with the video barcode. 1 kHz is exactly 48 samples per period, so a
/// beep starts and ends on a zero crossing and the samples come from a 48-entry table.
public struct TestPatternTone: Sendable {
    public static let sampleRate = 48_000
    public static let channelCount = 2
    public static let frequency = 1_000
    /// Samples (per channel) at the start of each second that beep: 100 ms.
    public static let beepSamples = 4_800
    /// Peak amplitude: 32767 x 10^(-12/20).
    public static let amplitude: Int16 = 8_231

    private static let samplesPerPeriod = sampleRate / frequency
    /// One period of the sine.
    private let period: [Int16]

    public init() {
        period = (0..<Self.samplesPerPeriod).map { n in
            Int16((Double(Self.amplitude) * sin(2 * Double.pi * Double(n) / Double(Self.samplesPerPeriod))).rounded())
        }
    }

    /// The sample time of a Unix time in milliseconds: 48 samples per millisecond.
    public static func sampleTime(unixMilliseconds: UInt64) -> Int64 {
        Int64(unixMilliseconds) * Int64(sampleRate / 1_000)
    }

    /// Whether the sample at `sampleTime` lies in a beep.
    public static func isBeep(sampleTime: Int64) -> Bool {
        positiveRemainder(sampleTime, Int64(sampleRate)) < Int64(beepSamples)
    }

    /// The value of the (mono) signal at `sampleTime`.
    public func sample(at sampleTime: Int64) -> Int16 {
        guard Self.isBeep(sampleTime: sampleTime) else { return 0 }
        return period[Int(Self.positiveRemainder(sampleTime, Int64(Self.samplesPerPeriod)))]
    }

    /// Writes `frames` stereo frames (`2 * frames` Int16, left then right) starting at the
    /// absolute sample time `firstSampleTime`.
    public func fill(_ samples: UnsafeMutablePointer<Int16>, frames: Int, firstSampleTime: Int64) {
        var inSecond = Int(Self.positiveRemainder(firstSampleTime, Int64(Self.sampleRate)))
        var inPeriod = Int(Self.positiveRemainder(firstSampleTime, Int64(Self.samplesPerPeriod)))
        period.withUnsafeBufferPointer { period in
            for frame in 0..<frames {
                let value = inSecond < Self.beepSamples ? period[inPeriod] : 0
                samples[2 * frame] = value
                samples[2 * frame + 1] = value
                inSecond += 1
                if inSecond == Self.sampleRate { inSecond = 0 }
                inPeriod += 1
                if inPeriod == Self.samplesPerPeriod { inPeriod = 0 }
            }
        }
    }

    /// `value mod divisor` in `0..<divisor`, also for times before 1970.
    private static func positiveRemainder(_ value: Int64, _ divisor: Int64) -> Int64 {
        let remainder = value % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
