/// What one SRTPContext remembers about one SSRC (RFC 3711 §3.2.1 "cryptographic context"
/// per SSRC): the packet index for SRTP, the SRTCP index, and the replay windows.
/// A plain value; the table stores these inline so lookups and updates never allocate.
struct SRTPStreamState: Sendable {
    let ssrc: UInt32
    /// Highest SRTP index protected (sender) or authenticated (receiver); nil before the first.
    var highestRTPIndex: UInt64?
    /// Receiver: SRTP indices already authenticated.
    var rtpReplay = SRTPReplayWindow()
    /// Sender: the SRTCP index for the next packet (31 bits, starts at 0, RFC 3711 §3.4).
    var nextRTCPIndex: UInt32 = 0
    /// Receiver: SRTCP indices already authenticated.
    var rtcpReplay = SRTPReplayWindow()

    init(ssrc: UInt32) { self.ssrc = ssrc }

    /// The rollover counter of the highest index (RFC 3711 §3.3.1).
    var rolloverCounter: UInt32 { UInt32(truncatingIfNeeded: (highestRTPIndex ?? 0) >> 16) }

    /// Raises the highest index if `index` is newer (§3.3.1: update ROC and s_l).
    mutating func advanceRTP(to index: UInt64) {
        if let highest = highestRTPIndex, highest >= index { return }
        highestRTPIndex = index
    }
}
