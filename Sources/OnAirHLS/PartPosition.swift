/// Where a Partial Segment sits: its parent's Media Sequence Number and its Part Index
/// within that parent (RFC 8216bis §6.2.5.2), ordered as the playlist orders them.
public struct PartPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var mediaSequence: Int
    public var index: Int

    public init(mediaSequence: Int, index: Int) {
        self.mediaSequence = mediaSequence
        self.index = index
    }

    public static func < (a: PartPosition, b: PartPosition) -> Bool {
        (a.mediaSequence, a.index) < (b.mediaSequence, b.index)
    }

    public var description: String { "\(mediaSequence).\(index)" }
}
