import OnAirWire

/// Picks the one publisher SSRC of a kind that viewers get. A simulcast publisher sends
/// several encodings on one payload type; forwarding them all would interleave three
/// pictures. We keep the first source we see and switch only when it falls silent.
struct SourceLock: Sendable {
    private(set) var ssrc: UInt32?
    private var lastSeen = MonoTime.zero
    let silence: Duration
    /// Packets from other sources of this kind that were not forwarded.
    private(set) var ignored: UInt64 = 0

    init(ssrc: UInt32? = nil, silence: Duration = .seconds(1)) {
        self.ssrc = ssrc
        self.silence = silence
    }

    enum Decision { case forward, switched, ignore }

    @inline(__always)
    mutating func accept(_ candidate: UInt32, now: MonoTime) -> Decision {
        if ssrc == candidate {
            lastSeen = now
            return .forward
        }
        if ssrc == nil || now - lastSeen > silence {
            let hadSource = ssrc != nil
            ssrc = candidate
            lastSeen = now
            return hadSource ? .switched : .forward
        }
        ignored += 1
        return .ignore
    }
}
