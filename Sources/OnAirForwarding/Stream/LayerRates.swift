/// What the publisher's worker measured of one video layer, handed to replicas through the
/// ``StreamFeed`` (about once a second): a replica that starts now has seen a fifth of a
/// second of the layer at most, and without a keyframe in it, so its own figure reads low and
/// a viewer it places at join would take a layer its link cannot carry.
package struct LayerRates: Sendable, Equatable {
    package var ssrc: UInt32 = 0
    /// Bits per second, smoothed over a few seconds (keyframes included).
    package var bitrate: Double = 0
    package var framesPerSecond: Double = 0
    package var width: Int?
    package var height: Int?

    package init() {}

    package init(_ layer: ReceivedLayer) {
        ssrc = layer.ssrc
        bitrate = layer.smoothedBitrate
        framesPerSecond = layer.framesPerSecond
        width = layer.width
        height = layer.height
    }
}
