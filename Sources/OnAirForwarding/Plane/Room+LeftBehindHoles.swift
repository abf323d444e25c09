import OnAirWire

/// Holes a viewer keeps from a layer it left. A packet the publisher lost stays a hole in the
/// viewer's numbering until the relay's repair brings it or gives it up, but both reach only
/// the viewers still on that layer. A receiver that asks once per gap and assembles frames
/// strictly in sequence order (aiortc: its video jitter buffer holds everything after a hole
/// until 512 packets have passed, 17 s on a 180p layer) would freeze on such a hole long
/// after the new layer's keyframe came. So when a viewer leaves a layer, each hole in what it
/// got from it is filled at once (RFC 4585 §6.2.1 lets a sender not resend; the filler keeps
/// the frame's timestamp). Receivers that repeat their NACKs (libwebrtc) get the same answer
/// when they ask (``giveUp``).
extension Room {
    /// The newest this many sequence numbers of a left range are checked: a receiver's jitter
    /// buffer has moved past anything older.
    package static let leftBehindChecked: UInt16 = 512

    /// Returns the range checked and the holes filled, when a layer was left.
    @discardableResult
    package func fillHolesLeftBehind(by viewer: ViewerSession, now: MonoTime,
                                     sender: any DatagramSink) -> (first: UInt16, last: UInt16, filled: Int)? {
        guard let range = viewer.video?.takeLeftBehind(), !viewer.repeatsNACKs,
              let output = ViewerOutput(viewer, sender: sender, now: now) else { return nil }
        var filled = 0
        let span = min(range.last &- range.first, Self.leftBehindChecked - 1)
        var sequence = range.last &- span
        var frameTimestamp = viewer.history.sent(sequence &- 1)?.timestamp
        for _ in 0...span {
            if let sent = viewer.history.sent(sequence) {
                frameTimestamp = sent.timestamp
            } else {
                let timestamp = frameTimestamp ?? nextSentTimestamp(after: sequence, through: range.last, of: viewer)
                giveUp(sequence, via: output, frameTimestamp: timestamp)
                filled += 1
            }
            sequence &+= 1
        }
        return (range.last &- span, range.last, filled)
    }

    /// The timestamp of the first packet sent after `sequence` (a hole at the start of a range).
    private func nextSentTimestamp(after sequence: UInt16, through last: UInt16, of viewer: ViewerSession) -> UInt32? {
        var next = sequence
        while next != last {
            next &+= 1
            if let sent = viewer.history.sent(next) { return sent.timestamp }
        }
        return nil
    }
}
