import OnAirWire

/// A 1-5 link quality score from loss, jitter and round-trip time: the simplified E-model
/// commonly used by VoIP monitors (a reduction of ITU-T G.107's R-factor to the three
/// things RTCP reports measure).
///
/// ```
/// effective latency (ms) = RTT/2 + 2 × jitter + 10
/// latency penalty        = latency / 40            if latency < 160 ms
///                          (latency - 120) / 10    otherwise
/// R   = 93.2 - latency penalty - 2.5 × loss%       clamped to 0...100
/// MOS = 1 + 0.035 R + 7e-6 R (R - 60) (100 - R)    (ITU-T G.107 Annex B, B-4; at least 1)
/// ```
///
/// The score is the ITU-T G.109 quality category of R, not MOS rounded: MOS reaches at
/// most 4.5 (and 4.4 on a perfect link, since R starts at 93.2), so rounding it could never
/// say 5, and it rounds a link most users find poor (R 60-70, MOS 3.1-3.6) up to 3.
///
/// | score | R      | G.109 category | MOS from |
/// |-------|--------|----------------|----------|
/// | 5     | ≥ 90   | best           | 4.34     |
/// | 4     | 80-90  | high           | 4.03     |
/// | 3     | 70-80  | medium         | 3.60     |
/// | 2     | 60-70  | low            | 3.10     |
/// | 1     | < 60   | poor           |          |
public struct LinkQualityScore: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The transmission rating R, 0...100.
    public let rFactor: Double
    /// Mean opinion score, 1...4.5.
    public let meanOpinionScore: Double
    /// 1 (poor) ... 5 (best).
    public let score: Int

    /// - Parameters:
    ///   - lossPercent: packet loss in percent, 0...100.
    ///   - jitter: interarrival jitter.
    ///   - roundTripTime: the round-trip time.
    public init(lossPercent: Double, jitter: Duration, roundTripTime: Duration) {
        let loss = lossPercent.isFinite ? min(max(lossPercent, 0), 100) : 100
        // The E-model is float math in ms.
        let jitterMs = max(jitter, .zero).seconds * 1000
        let rttMs = max(roundTripTime, .zero).seconds * 1000
        let latency = rttMs / 2 + 2 * jitterMs + 10
        let latencyPenalty = latency < 160 ? latency / 40 : (latency - 120) / 10
        let r = min(max(93.2 - latencyPenalty - 2.5 * loss, 0), 100)
        rFactor = r
        // The cubic dips below 1 for R under about 6.5; G.107 means 1 there.
        meanOpinionScore = max(1, 1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r))
        score = switch r {
        case 90...: 5
        case 80..<90: 4
        case 70..<80: 3
        case 60..<70: 2
        default: 1
        }
    }

    public static func < (a: LinkQualityScore, b: LinkQualityScore) -> Bool { a.rFactor < b.rFactor }

    public var description: String {
        "\(score)/5 (R \(Int(rFactor.rounded())), MOS \(Double(Int((meanOpinionScore * 10).rounded())) / 10))"
    }
}
