import OnAirWire

/// The receiving side of RTP loss repair (RFC 4585 §6.2.1 Generic NACK, RFC 4588): finds the
/// gaps in one incoming stream, says which sequence numbers to ask for and when, asks again
/// after a round trip, and gives up at a deadline, after which only a keyframe helps.
///
/// Pure state, a manual clock: the caller feeds arrivals and polls. Reordering is tolerated:
/// a missing packet is first requested once `reorderPackets` later packets or `reorderDelay`
/// have passed. The round trip is learnt from the repairs themselves (NACK to first
/// retransmission, Karn's rule: only packets asked for once), so it needs no RTCP from the
/// sender. Arrivals allocate nothing; the missing list is reserved once.
public struct NACKGenerator: Sendable {
    public struct Settings: Sendable {
        /// Later packets that must arrive before a gap counts as loss rather than reordering.
        public var reorderPackets = 3
        /// Time after which a gap counts as loss whatever arrived since.
        public var reorderDelay: Duration = .milliseconds(10)
        /// Never ask for the same packet more often than this, whatever the round trip.
        public var minimumResendInterval: Duration = .milliseconds(20)
        public var maximumRequests = 10
        /// A packet is given up `3 × RTT + 40 ms` after it went missing, within these bounds:
        /// later it would only hold the viewers' decoders back longer than a keyframe would.
        public var minimumDeadline: Duration = .milliseconds(120)
        public var maximumDeadline: Duration = .seconds(1)
        /// More missing packets than this at once is an outage, not loss: give them all up.
        public var maximumMissing = 500
        /// The round trip assumed until a repair measured one.
        public var initialRoundTrip: Duration = .milliseconds(100)

        public init() {}
    }

    /// What one arrival was.
    public enum Arrival: Equatable, Sendable {
        /// The next or a later packet (a gap before it is now missing).
        case new
        /// A packet that was missing and had been asked for.
        case repaired
        /// A packet that was missing but not asked for yet: it was only reordered.
        case reordered
        /// Seen already, or older than anything still wanted.
        case duplicate
    }

    private struct Missing: Sendable {
        var extended: Int64
        var missedAt: MonoTime
        var lastRequestAt: MonoTime?
        var requests: Int
        /// Later packets seen since it went missing, up to what reordering needs.
        var seenAfter: Int
    }

    public let settings: Settings
    private var unwrapper = SequenceNumberUnwrapper()
    private var newest: Int64?
    private var missing: ContiguousArray<Missing> = []
    /// Smoothed NACK round trip (RFC 6298 style, α = 1/8; the first sample is taken whole).
    public private(set) var roundTrip: Duration
    private var measuredRoundTrip = false

    /// Sequence numbers asked for, retries included.
    public private(set) var requested: UInt64 = 0
    /// Packets that were asked for and arrived.
    public private(set) var repaired: UInt64 = 0
    /// Packets given up (deadline, request limit, outage).
    public private(set) var unrepaired: UInt64 = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
        roundTrip = settings.initialRoundTrip
        missing.reserveCapacity(settings.maximumMissing + 1)
    }

    /// Packets currently missing.
    public var missingCount: Int { missing.count }

    /// How long a missing packet is worth asking for.
    public var deadline: Duration {
        min(max(roundTrip * 3 + .milliseconds(40), settings.minimumDeadline), settings.maximumDeadline)
    }

    /// Records an arrival. A gap of more than `maximumMissing` packets is given up at once
    /// (`unrepairable` tells the caller a keyframe is needed).
    public mutating func received(_ sequence: UInt16, now: MonoTime) -> (arrival: Arrival, unrepairable: Bool) {
        let extended = unwrapper.unwrap(sequence)
        guard let last = newest else {
            newest = extended
            return (.new, false)
        }
        if extended > last {
            newest = extended
            for index in missing.indices where missing[index].seenAfter < settings.reorderPackets {
                missing[index].seenAfter += 1
            }
            let gap = extended - last - 1
            if gap == 0 { return (.new, false) }
            if gap + Int64(missing.count) > Int64(settings.maximumMissing) {
                unrepaired &+= UInt64(missing.count) + UInt64(gap)
                missing.removeAll(keepingCapacity: true)
                return (.new, true)
            }
            var number = last + 1
            while number < extended {
                missing.append(Missing(extended: number, missedAt: now, lastRequestAt: nil, requests: 0,
                                       seenAfter: Int(extended - number)))
                number += 1
            }
            return (.new, false)
        }
        guard let index = position(of: extended) else { return (.duplicate, false) }
        let entry = missing.remove(at: index)
        guard let askedAt = entry.lastRequestAt else { return (.reordered, false) }
        repaired &+= 1
        if entry.requests == 1 { learnRoundTrip(now - askedAt) }
        return (.repaired, false)
    }

    /// Appends to `due` the sequence numbers to ask for now, and drops those past their
    /// deadline or request limit, appending them to `givenUp` (a keyframe is needed).
    /// - Returns: how many were given up.
    @discardableResult
    public mutating func poll(now: MonoTime, into due: inout [UInt16], givenUp: inout [UInt16]) -> Int {
        let deadline = deadline
        let resend = max(roundTrip, settings.minimumResendInterval)
        var count = 0
        var index = 0
        while index < missing.count {
            let entry = missing[index]
            let exhausted = entry.requests >= settings.maximumRequests && entry.lastRequestAt.map { now - $0 >= resend } == true
            if now - entry.missedAt > deadline || exhausted {
                missing.remove(at: index)
                count += 1
                givenUp.append(UInt16(truncatingIfNeeded: entry.extended))
                continue
            }
            let isDue: Bool
            if let last = entry.lastRequestAt {
                isDue = now - last >= resend
            } else {
                isDue = entry.seenAfter >= settings.reorderPackets || now - entry.missedAt >= settings.reorderDelay
            }
            if isDue {
                missing[index].lastRequestAt = now
                missing[index].requests += 1
                requested &+= 1
                due.append(UInt16(truncatingIfNeeded: entry.extended))
            }
            index += 1
        }
        unrepaired &+= UInt64(count)
        return count
    }

    /// Forgets the stream (a new source): nothing is missing any more.
    public mutating func reset() {
        unwrapper = SequenceNumberUnwrapper()
        newest = nil
        missing.removeAll(keepingCapacity: true)
    }

    private func position(of extended: Int64) -> Int? {
        var low = 0
        var high = missing.count
        while low < high {
            let middle = (low + high) / 2
            if missing[middle].extended < extended { low = middle + 1 } else { high = middle }
        }
        return low < missing.count && missing[low].extended == extended ? low : nil
    }

    private mutating func learnRoundTrip(_ sample: Duration) {
        guard sample > .zero else { return }
        roundTrip = measuredRoundTrip ? roundTrip * 7 / 8 + sample / 8 : sample
        measuredRoundTrip = true
    }
}
