/// Relay-wide LL-HLS figures for `/metrics`, shared by every ``HLSBranch``. Confined to the
/// LL-HLS loop like the branches; a scrape copies it there (``snapshot``).
final class HLSStatistics {
    /// From the datagram that completed a part's last access unit (its arrival on the
    /// forwarding loop) to the part being downloadable, the hand-over to the LL-HLS loop included.
    var partReady = LatencyHistogram.partReady()
    var recordingsStarted: UInt64 = 0
    /// Fragments a recording left out because the disk fell behind (or failed).
    var recordingFragmentsDropped: UInt64 = 0

    func snapshot(waitingRequests: Int, tapDropped: UInt64) -> HLSCounters {
        HLSCounters(partReady: partReady, recordingsStarted: recordingsStarted,
                    recordingFragmentsDropped: recordingFragmentsDropped, waitingRequests: waitingRequests, tapDropped: tapDropped)
    }
}

/// A copy of ``HLSStatistics`` taken on the LL-HLS loop.
struct HLSCounters: Sendable {
    var partReady: LatencyHistogram
    var recordingsStarted: UInt64
    var recordingFragmentsDropped: UInt64
    /// Blocking playlist and hinted-part requests being held right now.
    var waitingRequests: Int
    /// Packets and sender reports the forwarding loops could not hand to packaging because
    /// it fell behind (``MediaTapRing``).
    var tapDropped: UInt64
}
