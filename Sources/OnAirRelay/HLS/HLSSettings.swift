/// LL-HLS packaging settings of the relay.
public struct HLSSettings: Sendable, Equatable {
    /// Package every live room as LL-HLS.
    public var enabled = true
    /// EXT-X-PART-INF PART-TARGET.
    public var partTarget: Duration = .milliseconds(333)
    /// Segments are cut at the first IDR after this long.
    public var segmentTarget: Duration = .seconds(2)
    /// How much the media playlist lists (DVR window).
    public var window: Duration = .seconds(30)
    /// How long a finished stream's presentation (with EXT-X-ENDLIST) stays servable.
    public var keepAfterEnd: Duration = .seconds(60)

    public init() {}
}
