/// Per-SSRC state of one SRTPContext, kept inline in a contiguous array with a fixed capacity.
///
/// The array's storage is reserved at init, so the steady state (known SSRCs) and even the
/// arrival of a new SSRC up to `limit` never allocate; a lookup checks the last hit first and
/// then scans, which beats hashing for the handful of SSRCs a WebRTC session carries
/// (audio, video, RTX, a few simulcast layers). Entries are never evicted: forgetting a
/// sender's index would reuse keystream, forgetting a receiver's window would admit replays.
struct SRTPStreamTable: Sendable {
    let limit: Int
    private var streams: [SRTPStreamState] = []
    private var lastHit = 0

    init(limit: Int) {
        self.limit = max(1, limit)
        streams.reserveCapacity(self.limit)
    }

    var count: Int { streams.count }

    /// The slot of `ssrc`, if known.
    mutating func slot(of ssrc: UInt32) -> Int? {
        if lastHit < streams.count && streams[lastHit].ssrc == ssrc { return lastHit }
        for i in streams.indices where streams[i].ssrc == ssrc {
            lastHit = i
            return i
        }
        return nil
    }

    /// The slot of `ssrc`, adding fresh state if it is new.
    mutating func slotAdding(_ ssrc: UInt32) throws(SRTPError) -> Int {
        if let found = slot(of: ssrc) { return found }
        return try add(SRTPStreamState(ssrc: ssrc))
    }

    /// Stores new state (the receiver adds a stream only once a packet has authenticated, so a
    /// forger cannot fill the table).
    mutating func add(_ state: SRTPStreamState) throws(SRTPError) -> Int {
        guard streams.count < limit else { throw .tooManyStreams(limit: limit) }
        streams.append(state)
        lastHit = streams.count - 1
        return lastHit
    }

    /// Plain get/set (a ~100-byte copy) rather than a `_modify` coroutine: unoptimized builds
    /// heap-allocate coroutine frames, and debug builds should not allocate per packet either.
    subscript(slot: Int) -> SRTPStreamState {
        get { streams[slot] }
        set { streams[slot] = newValue }
    }
}
