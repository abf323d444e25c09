/// A viewer's receiver reports count every sequence number it never got, including those the
/// relay never had to send: the publisher's packets lost on the way in and not repaired go on
/// as gaps in the viewer's numbering (the viewer NACKs them; a keyframe ends the wait). Read
/// as the viewer's own loss, they would cut every viewer's estimate whenever the publisher's
/// uplink loses. This takes them out of each report's fraction lost (RFC 3550 §6.4.1: lost in
/// the interval over expected in the interval), for the estimator's loss rules.
public struct UpstreamLossDiscount: Sendable {
    private var last: (extendedHighest: UInt32, notSent: Int64)?

    public init() {}

    /// The fraction lost over the report's interval that the viewer's link lost, 0...1.
    ///
    /// - Parameters:
    ///   - fractionLost: the report block's field (RFC 3550 §6.4.1, 8-bit fixed point).
    ///   - extendedHighest: the block's extended highest sequence number received.
    ///   - notSent: sequence numbers of this stream the relay skipped so far (gaps it passed
    ///     on less late packets that filled them: ``TrackRewriter/sequencesNotSent``).
    public mutating func fraction(fractionLost: UInt8, extendedHighest: UInt32, notSent: Int64) -> Double {
        let reported = Double(fractionLost) / 256
        defer { last = (extendedHighest, notSent) }
        guard let last else { return reported }
        let expected = Int64(Int32(bitPattern: extendedHighest &- last.extendedHighest))
        guard expected > 0 else { return reported }
        let lost = reported * Double(expected)
        let skipped = Double(max(0, min(notSent - last.notSent, expected)))
        return max(0, lost - skipped) / Double(expected)
    }
}
