/// A video layer as the selector sees it: one encoding the publisher sends.
public struct LayerCandidate: Sendable, Equatable {
    /// The publisher's layer index (what ``LayeredVideoRewriter`` is told to forward).
    public var index: Int
    /// Bits per second on the wire, smoothed over a few seconds.
    public var bitrate: Int
    public var width: Int?
    public var height: Int?
    /// Packets arrived lately: a paused layer is no candidate.
    public var live: Bool

    public init(index: Int, bitrate: Int, width: Int?, height: Int?, live: Bool) {
        self.index = index
        self.bitrate = bitrate
        self.width = width
        self.height = height
        self.live = live
    }

    var pixels: Int { (width ?? 0) * (height ?? 0) }
}
