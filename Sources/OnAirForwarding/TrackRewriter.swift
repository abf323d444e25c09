/// Maps one publisher RTP stream onto one viewer's view of it: the viewer's own SSRC, a
/// sequence space with no gap where it joined (RFC 3550 §5.1 only requires monotonic
/// numbering from a random start), a timestamp base of its own, and the payload type the
/// viewer negotiated. Pure value arithmetic so it is testable without sockets.
public struct TrackRewriter: Sendable {
    public let ssrc: UInt32
    public let payloadType: UInt8
    /// Video viewers start on a keyframe so the first frame they get is decodable.
    public let waitsForKeyframe: Bool

    private var initialSequence: UInt16
    private var initialTimestamp: UInt32
    private var lastSequence: UInt16 = 0
    private var lastTimestamp: UInt32 = 0
    private var hasLast = false
    /// The viewer sequence number of the first packet since the last (re)start.
    private var firstViewerSequence: UInt16 = 0
    private var sequenceOffset: UInt16 = 0
    private var timestampOffset: UInt32 = 0
    public private(set) var started = false
    /// Extended (wrap-free) publisher sequence numbers: the first forwarded and the highest seen.
    /// Anything older than the first predates this viewer and would precede its keyframe.
    private var firstExtended: Int64 = 0
    private var highestExtended: Int64 = 0
    private var highestSequence: UInt16 = 0
    /// Publisher sequence numbers passed over (a gap in what arrived) less late packets that
    /// came in below the highest: what the viewer will miss through no fault of its link.
    public private(set) var sequencesNotSent: Int64 = 0

    public init(ssrc: UInt32, payloadType: UInt8, waitsForKeyframe: Bool, initialSequence: UInt16, initialTimestamp: UInt32) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.waitsForKeyframe = waitsForKeyframe
        self.initialSequence = initialSequence
        self.initialTimestamp = initialTimestamp
    }

    /// Decides whether a publisher packet goes to this viewer and, if so, with which numbers.
    /// Returns nil while a video viewer waits for its first keyframe.
    @inline(__always)
    public mutating func map(sequence: UInt16, timestamp: UInt32, startsKeyframe: Bool) -> (sequence: UInt16, timestamp: UInt32)? {
        if !started {
            if waitsForKeyframe && !startsKeyframe { return nil }
            started = true
            sequenceOffset = initialSequence &- sequence
            firstViewerSequence = initialSequence
            timestampOffset = initialTimestamp &- timestamp
            highestSequence = sequence
            firstExtended = 0
            highestExtended = 0
        } else {
            let extended = highestExtended + Int64(Int16(bitPattern: sequence &- highestSequence))
            if extended < firstExtended { return nil }
            if extended > highestExtended {
                sequencesNotSent += extended - highestExtended - 1
                highestExtended = extended
                highestSequence = sequence
            } else if extended < highestExtended {
                sequencesNotSent -= 1
            }
        }
        let mapped = (sequence &+ sequenceOffset, timestamp &+ timestampOffset)
        if !hasLast || Int16(bitPattern: mapped.0 &- lastSequence) > 0 {
            hasLast = true
            lastSequence = mapped.0
            lastTimestamp = mapped.1
        }
        return mapped
    }

    /// The publisher's source changed (a new SSRC: simulcast layer switch, encoder restart):
    /// continue the viewer's numbering right after what it has, from the next keyframe.
    public mutating func rebase(timestampStep: UInt32) {
        guard started else { return }
        switchSource(nextTimestamp: lastTimestamp &+ timestampStep)
    }

    /// Continues the viewer's numbering on another source (a simulcast layer switch, a resume
    /// after a pause) from that source's next keyframe: sequence numbers right after the last
    /// sent (RFC 3550 §5.1 allows no gap a receiver would read as loss), and `nextTimestamp`
    /// for that keyframe, which the caller has mapped onto the viewer's timeline.
    ///
    /// - Parameter skipping: sequence numbers left out first (a resume that must not wait on
    ///   older holes: ``LayeredVideoRewriter/skipAfterPause``).
    public mutating func switchSource(nextTimestamp: UInt32, skipping: UInt16 = 0) {
        started = false
        initialSequence = hasLast ? lastSequence &+ 1 &+ skipping : initialSequence
        initialTimestamp = nextTimestamp
    }

    /// The newest viewer timestamp sent, and the source timestamp it came from.
    public var lastTimestamps: (viewer: UInt32, source: UInt32)? {
        hasLast ? (lastTimestamp, lastTimestamp &- timestampOffset) : nil
    }

    /// The viewer sequence numbers from the first sent since the last (re)start to the newest,
    /// or nil before anything was sent. Sequence numbers in it that were never sent are holes
    /// the publisher lost.
    public var viewerRange: (first: UInt16, last: UInt16)? {
        started && hasLast ? (firstViewerSequence, lastSequence) : nil
    }

    /// Whether a viewer sequence number was sent since the last (re)start, i.e. maps back
    /// through this rewriter's offset.
    public func covers(viewerSequence: UInt16) -> Bool {
        started && hasLast && Int16(bitPattern: viewerSequence &- firstViewerSequence) >= 0
            && Int16(bitPattern: lastSequence &- viewerSequence) >= 0
    }

    /// The publisher sequence number behind a viewer's sequence number (for NACKs), or nil
    /// before the track started.
    public func publisherSequence(forViewerSequence viewerSequence: UInt16) -> UInt16? {
        started ? viewerSequence &- sequenceOffset : nil
    }

    /// The viewer's RTP timestamp for a publisher timestamp (for sender reports).
    public func viewerTimestamp(forPublisherTimestamp timestamp: UInt32) -> UInt32? {
        started ? timestamp &+ timestampOffset : nil
    }
}
