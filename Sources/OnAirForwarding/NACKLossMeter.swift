import OnAirWire

/// The share of one viewer's video lost on its link, read from its NACKs (RFC 4585 §6.2.1)
/// within a round trip instead of from receiver reports about once a second.
///
/// A receiver NACKs a gap as soon as a later packet shows it, in ascending order (aiortc,
/// libwebrtc, Pion's generator), so once a NACK names sequence `n`, every packet up to `n`
/// either arrived or was NACKed: the loss of that span is exact, with no guess at what is
/// still in flight. A span is judged once it holds ``minimumPackets`` and ``window`` has
/// passed; one with no NACK counts as clean. Sequences restart at a layer switch or a resume,
/// so what the meter says is about the layer sent now.
public struct NACKLossMeter: Sendable {
    /// How often a span is judged.
    public static let window: Duration = .milliseconds(250)
    /// Fewer packets than this say too little (a 2.5 Mbit/s layer sends ~70 per window).
    public static let minimumPackets = 12
    /// A figure holds until the next span is judged (updates come every 100 ms), no longer:
    /// one lossy span alone never lasts as long as ``PauseGate``'s sustains.
    public static let freshness: Duration = .milliseconds(350)

    private var highestSent: UInt16?
    /// The span judged next starts after this sequence.
    private var judgedFrom: UInt16 = 0
    /// The newest sequence NACKed in the span, and how many were.
    private var highestNACKed: UInt16?
    private var nacked = 0
    /// The highest sequence sent at the last two judgements: a span with no NACK moves on only
    /// to the older one, since NACKs of what was sent since may still be on their way.
    private var sentAtJudgement: (older: UInt16?, newer: UInt16?) = (nil, nil)
    private var spanStart: MonoTime?
    /// The last span's loss (0...1), and when it was judged.
    public var last: (fraction: Double, at: MonoTime)? {
        recent.0.judged > 0 ? (Double(recent.0.nacked) / Double(recent.0.judged), recent.0.at) : nil
    }
    /// The last three spans (NACKed, judged, when), newest first: the loss they add up to
    /// tells a link that carries a share of the layer from keyframes that overflow it.
    private var recent: (Span, Span, Span) = (.none, .none, .none)
    private struct Span {
        var nacked = 0
        var judged = 0
        var at = MonoTime.zero
        static let none = Span()
    }
    /// Spans older than this are not added up.
    public static let sustainedWindow: Duration = .milliseconds(1_200)

    public init() {}

    /// A video packet went out for the first time; `startsLayer`: it begins a layer (or a
    /// resume), and what came before says nothing about it.
    @inline(__always)
    public mutating func sent(_ sequence: UInt16, startsLayer: Bool) {
        if startsLayer || highestSent == nil { restart(after: sequence &- 1) }
        highestSent = sequence
    }

    private mutating func restart(after sequence: UInt16) {
        judgedFrom = sequence
        highestNACKed = nil
        nacked = 0
        sentAtJudgement = (nil, nil)
        spanStart = nil
        recent = (.none, .none, .none)
    }

    /// Sequences a NACK names: the new ones of the span count once each.
    public mutating func nacked(_ sequences: [UInt16]) {
        guard let highestSent else { return }
        for sequence in sequences {
            let newest = highestNACKed ?? judgedFrom
            guard Self.isNewer(sequence, than: newest), !Self.isNewer(sequence, than: highestSent) else { continue }
            highestNACKed = sequence
            nacked += 1
        }
    }

    /// Judges the span when it is due; the last loss figure while it is fresh, else nil.
    public mutating func loss(now: MonoTime) -> Double? {
        guard let highestSent else { return nil }
        let start = spanStart ?? now
        spanStart = start
        if now - start >= Self.window {
            if let top = highestNACKed {
                let span = Int(top &- judgedFrom)
                if span >= Self.minimumPackets {
                    record(nacked: nacked, judged: span, judgedUpTo: top, highestSent: highestSent, now: now)
                }
            } else if let older = sentAtJudgement.older, Int(older &- judgedFrom) >= Self.minimumPackets,
                      Self.isNewer(older, than: judgedFrom) {
                record(nacked: 0, judged: Int(older &- judgedFrom), judgedUpTo: older, highestSent: highestSent, now: now)
            } else if sentAtJudgement.newer != highestSent {
                // Not enough yet: remember where sending was, so a later span can move on.
                sentAtJudgement = (sentAtJudgement.newer, highestSent)
                spanStart = now
            }
        }
        return freshLoss(now: now)
    }

    /// The last span's loss while it is fresh (``freshness``), else nil; judges nothing.
    public func freshLoss(now: MonoTime) -> Double? {
        guard let last, now - last.at <= Self.freshness else { return nil }
        return last.fraction
    }

    /// The loss of the last three spans together, when all three were judged within
    /// ``sustainedWindow`` and the last is fresh; else nil.
    public func sustainedLoss(now: MonoTime) -> Double? {
        guard recent.2.judged > 0, now - recent.2.at <= Self.sustainedWindow, now - recent.0.at <= Self.freshness else {
            return nil
        }
        return Double(recent.0.nacked + recent.1.nacked + recent.2.nacked) / Double(recent.0.judged + recent.1.judged + recent.2.judged)
    }

    private mutating func record(nacked lost: Int, judged: Int, judgedUpTo top: UInt16, highestSent: UInt16, now: MonoTime) {
        recent = (Span(nacked: lost, judged: judged, at: now), recent.0, recent.1)
        judgedFrom = top
        highestNACKed = nil
        nacked = 0
        sentAtJudgement = (sentAtJudgement.newer, highestSent)
        spanStart = now
    }

    /// RFC 3550 §A.1 serial-number order.
    @inline(__always)
    static func isNewer(_ a: UInt16, than b: UInt16) -> Bool { Int16(bitPattern: a &- b) > 0 }
}
