/// Shares one video bitrate among simulcast encodings (RFC 8853), as libwebrtc does: the
/// smallest encoding first, each bigger one only when every smaller one has its bitrate, the
/// biggest gets the rest up to its maximum. When the estimate shrinks the biggest encoding
/// pauses first, once it would get less than 60 % of what it needs; a paused encoding resumes
/// only with 20 % headroom over what it needs. The gap between the two keeps an estimate
/// wobbling near a threshold (as every overuse back-off makes it) from switching a layer on
/// and off: each resume costs a keyframe.
public struct SimulcastAllocator: Sendable {
    /// Bitrates of the smaller encodings, best (biggest) first, as the offer lists them.
    public let lowerBitrates: [Int]
    /// The biggest encoding: on from `topMinimum`, never above `topMaximum`.
    public let topMinimum: Int
    public let topMaximum: Int
    public static let resumeHeadroom = 1.2
    /// An active encoding keeps sending while it gets at least this share of what it needs.
    public static let keepShare = 0.6

    /// Encodings sending now, counted from the smallest (1 = only the smallest).
    public private(set) var activeCount: Int
    /// What each encoding needs, smallest first: the lower bitrates, then the top's minimum.
    private let needs: [Int]

    public init(lowerBitrates: [Int], topMinimum: Int, topMaximum: Int) {
        self.lowerBitrates = lowerBitrates
        self.topMinimum = topMinimum
        self.topMaximum = max(topMinimum, topMaximum)
        activeCount = lowerBitrates.count + 1
        needs = lowerBitrates.reversed() + [topMinimum]
    }

    public var layerCount: Int { lowerBitrates.count + 1 }

    /// The most the allocator can use: every encoding at its bitrate, the biggest at its maximum.
    public var maximumTotal: Int { topMaximum + lowerTotal }

    /// What the smaller encodings take together at their bitrates.
    public var lowerTotal: Int { lowerBitrates.reduce(0, +) }

    /// The total that would resume the next paused encoding (with its headroom); nil when
    /// every encoding sends. While application-limited, the sender can only learn whether the
    /// path carries this much by trying (``BitrateController/probeCeiling``).
    public var resumeTotal: Int? {
        guard activeCount < layerCount else { return nil }
        let needed = needs.prefix(activeCount + 1).reduce(0, +)
        return Int(Double(needed) * Self.resumeHeadroom)
    }

    /// Splits `total` (bit/s): one bitrate per encoding, best first; 0 means paused. The
    /// smallest encoding always sends (with what there is).
    public mutating func allocate(total: Int) -> [Int] {
        // Thresholds from the smallest up: what the encodings up to and including each need.
        var below = 0  // what the smaller encodings need
        var count = 1
        for (index, own) in needs.enumerated() {
            defer { below += own }
            if index == 0 { continue }
            let resuming = index + 1 > activeCount
            let threshold = resuming ? Double(below + own) * Self.resumeHeadroom : Double(below) + Double(own) * Self.keepShare
            guard Double(total) >= threshold else { break }
            count = index + 1
        }
        activeCount = count
        var remaining = total
        var ascendingAllocation: [Int] = []
        for index in needs.indices {
            guard index < count else {
                ascendingAllocation.append(0)
                continue
            }
            let isBiggestActive = index == count - 1
            let share = isBiggestActive ? min(remaining, index == needs.count - 1 ? topMaximum : needs[index])
                : min(remaining, needs[index])
            ascendingAllocation.append(max(0, share))
            remaining -= share
        }
        return ascendingAllocation.reversed()
    }
}
