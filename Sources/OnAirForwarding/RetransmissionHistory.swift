import OnAirWire

/// What one viewer's video stream sent, by the viewer's sequence numbers: the last
/// ``capacity`` packets' timestamps and markers, and when each was last resent. It lets the
/// relay answer NACKs the way a receiver needs (RFC 4585 §6.2.1 lets a sender ignore them):
///
/// - each packet resent at most once per round trip: a receiver that lists every hole in
///   every NACK (aiortc re-lists up to 128 packets with each new gap) must not turn one
///   lost packet into a dozen copies on a link that is already full;
/// - a hole given up filled with the timestamp and marker it had, so that a receiver which
///   assembles frames by timestamp (aiortc) does not get a foreign or empty frame;
/// - resends repeated unasked for receivers that never repeat a NACK themselves (aiortc asks
///   only when a new gap appears): a resend lost again is sent again after a round trip, a
///   few times, unless a later NACK shows it arrived.
///
/// Fixed storage: recording a packet and answering a NACK allocate nothing.
public struct RetransmissionHistory: Sendable {
    public static let capacity = 1024
    /// Resends of one packet in all, asked for or not.
    public static let maximumAttempts: UInt8 = 3
    /// NACK lists of receivers like aiortc cover this many packets below their newest
    /// (RTP_HISTORY_SIZE): a resend older than that is never asked for again.
    public static let nackWindow: UInt16 = 128

    private struct Entry {
        var sequence: UInt16 = 0
        var timestamp: UInt32 = 0
        var marker = false
        var valid = false
        var attempts: UInt8 = 0
        var lastResent = MonoTime.zero
        var awaitingConfirmation = false
    }

    private var entries = [Entry](repeating: Entry(), count: capacity)
    /// Resent packets not yet known to have arrived, oldest first (bounded).
    private var outstanding: [UInt16] = []
    private static let maximumOutstanding = 256

    public init() {
        outstanding.reserveCapacity(Self.maximumOutstanding)
    }

    @inline(__always)
    private static func slot(_ sequence: UInt16) -> Int { Int(sequence) & (capacity - 1) }

    /// Whether `slot` still holds `sequence` (not a newer packet that reused it).
    private func holds(_ slot: Int, _ sequence: UInt16) -> Bool {
        entries[slot].valid && entries[slot].sequence == sequence
    }

    /// A video packet sent for the first time.
    @inline(__always)
    public mutating func recordSent(sequence: UInt16, timestamp: UInt32, marker: Bool) {
        entries[Self.slot(sequence)] = Entry(sequence: sequence, timestamp: timestamp, marker: marker, valid: true)
    }

    /// The timestamp and marker `sequence` was sent with, while it is remembered.
    public func sent(_ sequence: UInt16) -> (timestamp: UInt32, marker: Bool)? {
        let slot = Self.slot(sequence)
        guard holds(slot, sequence) else { return nil }
        return (entries[slot].timestamp, entries[slot].marker)
    }

    /// Whether a NACK for `sequence` should be answered now: not if it was resent less than
    /// `interval` (a round trip) ago, nor after ``maximumAttempts``.
    public func mayResend(_ sequence: UInt16, interval: Duration, now: MonoTime) -> Bool {
        let slot = Self.slot(sequence)
        guard holds(slot, sequence) else { return true }
        let entry = entries[slot]
        if entry.attempts == 0 { return true }
        return entry.attempts < Self.maximumAttempts && now - entry.lastResent >= interval
    }

    /// `sequence` was resent now; with `confirm`, it is resent again unasked until a NACK
    /// shows it arrived (receivers that do not repeat NACKs).
    public mutating func noteResent(_ sequence: UInt16, confirm: Bool, now: MonoTime) {
        let index = Self.slot(sequence)
        guard holds(index, sequence) else { return }
        entries[index].attempts &+= 1
        entries[index].lastResent = now
        guard confirm, !entries[index].awaitingConfirmation else { return }
        if outstanding.count >= Self.maximumOutstanding { forget(outstanding.removeFirst()) }
        entries[index].awaitingConfirmation = true
        outstanding.append(sequence)
    }

    /// A NACK arrived listing `sequences`: a resend it no longer lists, though within the
    /// window below its newest entry, has arrived.
    public mutating func noteNACK(_ sequences: [UInt16]) {
        guard !outstanding.isEmpty, let newest = sequences.max(by: { Int16(bitPattern: $0 &- $1) < 0 }) else { return }
        var index = 0
        while index < outstanding.count {
            let sequence = outstanding[index]
            if newest &- sequence < Self.nackWindow, !sequences.contains(sequence) {
                forget(sequence)
                outstanding.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    /// Appends to `overdue` each resent packet whose confirmation is overdue (resent
    /// `interval` ago and not shown to have arrived) and that may be tried again; forgets
    /// those that may not.
    public mutating func collectOverdue(interval: Duration, now: MonoTime, into overdue: inout [UInt16]) {
        guard !outstanding.isEmpty else { return }
        var index = 0
        while index < outstanding.count {
            let sequence = outstanding[index]
            let slot = Self.slot(sequence)
            guard holds(slot, sequence), entries[slot].attempts < Self.maximumAttempts else {
                forget(sequence)
                outstanding.remove(at: index)
                continue
            }
            if now - entries[slot].lastResent >= interval { overdue.append(sequence) }
            index += 1
        }
    }

    /// No longer awaits a confirmation for `sequence` (if its slot still holds it).
    private mutating func forget(_ sequence: UInt16) {
        let slot = Self.slot(sequence)
        if holds(slot, sequence) { entries[slot].awaitingConfirmation = false }
    }

    /// Resends awaiting confirmation.
    public var outstandingCount: Int { outstanding.count }
}
