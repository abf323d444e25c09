import OnAirWire

/// Picks the one publisher SSRC of a kind that viewers get. A simulcast publisher sends
/// several encodings on one payload type; forwarding them all would interleave three
/// pictures. We keep the best-ranked source seen (see ``PublisherSession/videoPreference(ssrc:ridRank:)``),
/// switch to a better one when it appears, and to any other when ours falls silent.
package struct SourceLock: Sendable {
    package private(set) var ssrc: UInt32?
    private var rank = Int.max
    private var lastSeen = MonoTime.zero
    package let silence: Duration
    /// Packets from other sources of this kind that were not forwarded.
    package private(set) var ignored: UInt64 = 0

    package init(ssrc: UInt32? = nil, silence: Duration = .seconds(1)) {
        self.ssrc = ssrc
        self.silence = silence
    }

    package enum Decision { case forward, switched, ignore }

    /// - Parameter candidateRank: the candidate's preference (lower is better), Int.max if unknown.
    @inline(__always)
    package mutating func accept(_ candidate: UInt32, rank candidateRank: Int = .max, now: MonoTime) -> Decision {
        if ssrc == candidate {
            lastSeen = now
            if candidateRank < rank { rank = candidateRank }
            return .forward
        }
        if ssrc == nil || now - lastSeen > silence || candidateRank < rank {
            let hadSource = ssrc != nil
            ssrc = candidate
            rank = candidateRank
            lastSeen = now
            return hadSource ? .switched : .forward
        }
        ignored += 1
        return .ignore
    }
}
