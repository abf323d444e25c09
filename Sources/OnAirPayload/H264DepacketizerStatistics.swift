/// Counters of an ``H264Depacketizer``: what arrived, what was lost, and what was dropped
/// rather than handed out broken.
public struct H264DepacketizerStatistics: Hashable, Sendable {
    /// Every packet passed to `receive`.
    public var packetsReceived = 0
    /// Sequence numbers that never arrived within the reorder window.
    public var packetsLost = 0
    /// Packets older than the next expected one (late beyond the window, or repeated).
    public var packetsLate = 0
    /// Packets whose sequence number was already held.
    public var packetsDuplicate = 0
    /// Payloads that break RFC 6184 (empty, truncated STAP-A, FU-A out of order, types not
    /// allowed in packetization-mode 1, F bit set): their access unit is dropped.
    public var packetsMalformed = 0
    /// Payloads of reserved NAL unit types (0, 30, 31), ignored.
    public var packetsIgnored = 0
    /// Packets that share the timestamp of an access unit already closed by its marker bit.
    public var packetsAfterMarker = 0
    /// Access units handed out (all complete).
    public var accessUnitsEmitted = 0
    /// Of those, keyframes (complete IDR access units).
    public var keyframesEmitted = 0
    /// Access units dropped because a packet inside them was lost or malformed, they grew
    /// past the size limit, or they began after a loss (or mid-stream) without an access
    /// unit delimiter or SPS to show that their first packets were all there.
    public var accessUnitsDroppedIncomplete = 0
    /// Complete access units dropped while waiting for an IDR after a loss (or at start):
    /// they reference pictures the receiver no longer has.
    public var accessUnitsDroppedAwaitingKeyframe = 0

    public init() {}
}
