/// Timing and naming of the LL-HLS presentation.
public struct LLHLSConfiguration: Sendable, Equatable {
    /// RFC 8216bis §4.4.3.7 EXT-X-PART-INF PART-TARGET: the longest a Partial Segment may
    /// last. Parts are cut at frame boundaries without exceeding it.
    public var partTarget: Duration
    /// A Media Segment is cut at the first IDR at or after this duration (GOP aligned:
    /// when GOPs are longer, segments are as long as the GOP).
    public var segmentTarget: Duration
    /// How much media the Media Playlist lists (the DVR window). Never less than three
    /// target durations (RFC 8216bis §6.2.2).
    public var playlistWindow: Duration
    /// BANDWIDTH announced before any segment has been measured, bits per second.
    public var bandwidthEstimate: Int
    public var names: HLSResourceNames

    public init(partTarget: Duration = .milliseconds(333), segmentTarget: Duration = .seconds(2),
                playlistWindow: Duration = .seconds(30), bandwidthEstimate: Int = 2_500_000,
                names: HLSResourceNames = HLSResourceNames()) {
        self.partTarget = partTarget
        self.segmentTarget = segmentTarget
        self.playlistWindow = playlistWindow
        self.bandwidthEstimate = bandwidthEstimate
        self.names = names
    }
}
