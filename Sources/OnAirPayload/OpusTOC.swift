/// The table-of-contents byte that starts every Opus packet (RFC 6716 §3.1):
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// | config  |s| c |
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// `config` (Table 2) selects the mode, audio bandwidth and frame duration; `s` is the
/// stereo flag; `c` the frame count code (§3.2). Every byte is a valid TOC.
public struct OpusTOC: Hashable, Sendable {
    /// RFC 6716 §2: the three coding modes.
    public enum Mode: Hashable, Sendable {
        case silk, hybrid, celt
    }

    /// RFC 6716 §2 Table 1 audio bandwidths.
    public enum Bandwidth: Hashable, Sendable {
        case narrowband, mediumband, wideband, superWideband, fullband
    }

    /// RFC 6716 §3.2 frame count codes.
    public enum FrameCountCode: UInt8, Hashable, Sendable {
        /// One frame.
        case one = 0
        /// Two frames of equal size.
        case twoEqual = 1
        /// Two frames of different sizes.
        case twoDifferent = 2
        /// An arbitrary number of frames, counted in the next byte.
        case arbitrary = 3
    }

    /// The RTP clock rate of Opus, whatever the audio bandwidth (RFC 7587 §4.1).
    public static let samplesPerSecond = 48_000

    public let byte: UInt8

    public init(_ byte: UInt8) { self.byte = byte }

    /// 0...31.
    public var config: Int { Int(byte >> 3) }
    public var isStereo: Bool { byte & 0x04 != 0 }
    public var frameCountCode: FrameCountCode { FrameCountCode(rawValue: byte & 0x03)! }

    /// Table 2: configs 0...11 SILK-only, 12...15 Hybrid, 16...31 CELT-only.
    public var mode: Mode {
        switch config {
        case 0...11: return .silk
        case 12...15: return .hybrid
        default: return .celt
        }
    }

    /// Table 2, by groups of configurations.
    public var bandwidth: Bandwidth {
        switch config {
        case 0...3: return .narrowband
        case 4...7: return .mediumband
        case 8...11: return .wideband
        case 12, 13: return .superWideband
        case 14, 15: return .fullband
        case 16...19: return .narrowband
        case 20...23: return .wideband
        case 24...27: return .superWideband
        default: return .fullband
        }
    }

    /// Duration of each frame in samples at 48 kHz. Table 2: SILK-only 10/20/40/60 ms,
    /// Hybrid 10/20 ms, CELT-only 2.5/5/10/20 ms, cycling within each group.
    public var frameSamples: Int {
        switch mode {
        case .silk: return [480, 960, 1920, 2880][config & 3]
        case .hybrid: return [480, 960][config & 1]
        case .celt: return [120, 240, 480, 960][config & 3]
        }
    }
}
