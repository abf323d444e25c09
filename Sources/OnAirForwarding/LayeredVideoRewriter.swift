import OnAirWire

/// One viewer's video when the publisher sends several encodings (simulcast layers, RFC 8853):
/// which layer the viewer gets, and the switch from one to another. A switch happens only at
/// a keyframe of the new layer (nothing before it decodes), with the viewer's sequence numbers
/// running on without a gap and its timestamps carried across through the layers' sender
/// reports (the same wallclock instant keeps its place on the viewer's timeline), never
/// backwards: a backwards jump stalls libwebrtc's jitter buffer.
public struct LayeredVideoRewriter: Sendable {
    public private(set) var rewriter: TrackRewriter
    /// The layer forwarded now; nil before the first keyframe and while paused.
    public private(set) var current: Int?
    /// The layer wanted; nil pauses video. A different layer is taken at its next keyframe.
    public var target: Int?
    /// The layers before the last switches and their rewriters, newest first, to answer NACKs
    /// for what they sent (a viewer may go f -> h -> q within a second and still miss f's packets).
    private var previous: [(layer: Int, rewriter: TrackRewriter)] = []
    private static let previousKept = 3
    /// The viewer sequence numbers sent from the layers left since ``takeLeftBehind()`` was
    /// last called: any hole in them will never be filled by the publisher's repair, which
    /// now goes to the viewers of that layer only.
    private var leftBehind: (first: UInt16, last: UInt16)?
    /// When the last video packet went out and which layer it came from (for the timestamp
    /// step after a pause, and across layers without sender reports).
    private var lastSentAt: MonoTime?
    private var lastLayer: Int?
    public private(set) var switches: UInt64 = 0
    /// Sequence numbers left out when video resumes after a pause (0: none, numbering runs on).
    /// For a receiver that asks once per gap and holds every frame behind a hole (aiortc: up
    /// to 512 packets), the holes a deep dip left would have to be filled before the resume's
    /// keyframe plays, and hundreds of fillers at the pause flood the thin link the pause was
    /// for (the audio starves for a second). A jump of 1,024 makes such a receiver drop what
    /// it holds and start afresh at the keyframe instead (RFC 3550 §A.1 lets a receiver
    /// resynchronise on a large jump).
    public var skipAfterPause: UInt16 = 0
    /// Paused with ``skipAfterPause``: the resume starts afresh, and nothing before it is repaired.
    public private(set) var resumesAfresh = false
    /// Sequence numbers left out by such resumes so far: never sent, so no loss of the viewer's
    /// link (its receiver reports count them lost: ``UpstreamLossDiscount``).
    public private(set) var sequencesSkipped: Int64 = 0
    /// Every sequence number the viewer will never get through no fault of its link.
    public var sequencesNotSent: Int64 { rewriter.sequencesNotSent + sequencesSkipped }

    public init(rewriter: TrackRewriter, target: Int?) {
        self.rewriter = rewriter
        self.target = target
    }

    public var ssrc: UInt32 { rewriter.ssrc }
    public var payloadType: UInt8 { rewriter.payloadType }
    /// Whether a keyframe of `layer` would start the viewer's video now (its first, a
    /// switch to that layer, or a resume), rather than continue what it gets.
    @inline(__always)
    public func startsAt(layer: Int) -> Bool {
        layer == target && (layer != current || !rewriter.started)
    }

    /// True between the choice of another layer and its keyframe.
    public var isSwitching: Bool { target != current }

    /// The viewer's numbers for one packet of `layer`, or nil when the viewer does not get it.
    ///
    /// - Parameter clock: the sender clock of a layer (its latest sender report), if known.
    @inline(__always)
    public mutating func map(layer: Int, sequence: UInt16, timestamp: UInt32, startsKeyframe: Bool, now: MonoTime,
                             clock: (Int) -> SenderClock?) -> (sequence: UInt16, timestamp: UInt32)? {
        if layer == current {
            if target != current && target == nil { return pause() }
            guard let numbers = rewriter.map(sequence: sequence, timestamp: timestamp, startsKeyframe: startsKeyframe) else {
                return nil
            }
            lastSentAt = now
            return numbers
        }
        guard layer == target, startsKeyframe else { return nil }
        if let last = rewriter.lastTimestamps {
            let step = Self.timestampStep(from: last.source, of: lastLayer.flatMap(clock), to: timestamp, of: clock(layer),
                                          elapsed: lastSentAt.map { now - $0 })
            if let current { remember(current) }
            rewriter.switchSource(nextTimestamp: last.viewer &+ step, skipping: resumesAfresh ? skipAfterPause : 0)
            if resumesAfresh { sequencesSkipped += Int64(skipAfterPause) }
            switches &+= 1
        }
        if resumesAfresh {
            previous.removeAll()
            leftBehind = nil
            resumesAfresh = false
        }
        current = layer
        lastLayer = layer
        guard let numbers = rewriter.map(sequence: sequence, timestamp: timestamp, startsKeyframe: true) else { return nil }
        lastSentAt = now
        return numbers
    }

    /// Stops forwarding the current layer now rather than at the target's keyframe: after a
    /// switch down for congestion, every packet more of the old layer deepens the queue the
    /// new layer's keyframe must get through (the viewer's picture holds until it comes).
    public mutating func leaveCurrentLayer() {
        guard current != nil, target != current else { return }
        _ = pause()
    }

    /// Stops forwarding the current layer until the target's next keyframe, the numbers
    /// running on from there without a gap: the viewer's TCP queue is full, and a frame
    /// dropped leaves every frame after it undecodable until a keyframe.
    public mutating func restartAtKeyframe() {
        guard current != nil, target != nil else { return }
        _ = pause()
    }

    /// Stops forwarding video (the estimate is below the lowest layer); audio goes on.
    private mutating func pause() -> (sequence: UInt16, timestamp: UInt32)? {
        let afresh = target == nil && skipAfterPause > 0
        if let current { remember(current, leavesHoles: !afresh) }
        if afresh { resumesAfresh = true }
        current = nil
        return nil
    }

    private mutating func remember(_ layer: Int, leavesHoles: Bool = true) {
        if previous.count == Self.previousKept { previous.removeLast() }
        previous.insert((layer, rewriter), at: 0)
        if leavesHoles, let range = rewriter.viewerRange {
            // Layers follow one another without a gap in the viewer's numbering: one range.
            leftBehind = (leftBehind?.first ?? range.first, range.last)
        }
    }

    /// The viewer sequence numbers of the layers left since the last call, once.
    public mutating func takeLeftBehind() -> (first: UInt16, last: UInt16)? {
        defer { leftBehind = nil }
        return leftBehind
    }

    /// The publisher layer and sequence number behind a viewer's sequence number, and the
    /// rewriter that numbered it (for answering NACKs with the numbers first sent).
    public func source(ofViewerSequence sequence: UInt16) -> (layer: Int, sequence: UInt16, rewriter: TrackRewriter)? {
        if let current, rewriter.covers(viewerSequence: sequence),
           let original = rewriter.publisherSequence(forViewerSequence: sequence) {
            return (current, original, rewriter)
        }
        for earlier in previous where earlier.rewriter.covers(viewerSequence: sequence) {
            if let original = earlier.rewriter.publisherSequence(forViewerSequence: sequence) {
                return (earlier.layer, original, earlier.rewriter)
            }
        }
        return nil
    }

    /// The viewer's timestamp for a timestamp of `layer` (for translating its sender reports).
    public func viewerTimestamp(layer: Int, publisherTimestamp: UInt32) -> UInt32? {
        layer == current ? rewriter.viewerTimestamp(forPublisherTimestamp: publisherTimestamp) : nil
    }

    /// How far the viewer's timestamps move from the last frame sent (`lastTimestamp` of the
    /// old layer) to the new layer's keyframe (`timestamp`): the wallclock time between them
    /// through both sender reports, else the time since the last packet went out, at least one
    /// tick and at most 10 s (a report that disagrees with the clock by more is not believed).
    static func timestampStep(from lastTimestamp: UInt32, of oldClock: SenderClock?, to timestamp: UInt32,
                              of newClock: SenderClock?, elapsed: Duration?) -> UInt32 {
        let rate = Int64(newClock?.clockRate ?? oldClock?.clockRate ?? 90_000)
        var nanoseconds: Int64
        if let oldClock, let newClock {
            nanoseconds = newClock.wallclock(of: timestamp) - oldClock.wallclock(of: lastTimestamp)
        } else {
            nanoseconds = elapsed.map { Int64($0.seconds * 1e9) } ?? 33_333_333
        }
        nanoseconds = min(max(nanoseconds, 0), 10_000_000_000)
        return UInt32(max(1, nanoseconds * rate / 1_000_000_000))
    }
}
