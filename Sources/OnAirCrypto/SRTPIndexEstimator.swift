/// Reconstructs the 48-bit SRTP packet index i = 2^16 * ROC + SEQ from a 16-bit sequence
/// number (RFC 3711 §3.3.1 and Appendix A).
enum SRTPIndexEstimator {
    /// The largest index (ROC 2^32 - 1, SEQ 65535); one more would repeat a keystream.
    static let maximumIndex: UInt64 = (1 << 48) - 1

    /// Guesses the index of `sequence` relative to the highest index seen so far, `highest`
    /// (nil before the first packet, when the ROC is 0 and the sequence starts the stream).
    ///
    /// Appendix A: with s_l the highest sequence number and ROC its rollover counter,
    /// v = ROC - 1 when s_l < 2^15 and SEQ - s_l > 2^15 (a late packet from before the wrap),
    /// v = ROC + 1 when s_l ≥ 2^15 and s_l - 2^15 > SEQ (the first packets after the wrap),
    /// v = ROC otherwise. A late packet from before ROC 0 cannot exist, so v stays 0 there.
    static func estimate(sequence: UInt16, highest: UInt64?) -> UInt64 {
        guard let highest else { return UInt64(sequence) }
        let roc = highest >> 16
        let last = UInt64(highest & 0xFFFF)
        let seq = UInt64(sequence)
        var guess = roc
        if last < 0x8000 {
            if seq > last && seq - last > 0x8000 && roc > 0 { guess = roc - 1 }
        } else if last - 0x8000 > seq {
            guess = roc + 1
        }
        return guess << 16 | seq
    }
}
