/// RFC 8216bis §4.4.6 Multivariant Playlist with one Variant Stream (§4.4.6.2
/// EXT-X-STREAM-INF) whose media playlist carries both tracks.
public struct MultivariantPlaylist: Sendable, Equatable {
    /// BANDWIDTH: peak segment bit rate, bits per second (§4.4.6.2).
    public var bandwidth: Int
    /// AVERAGE-BANDWIDTH, when measured.
    public var averageBandwidth: Int?
    /// CODECS: RFC 6381 formats of every track, e.g. "avc1.42e01f,mp4a.40.2".
    public var codecs: String
    public var resolution: (width: Int, height: Int)?
    /// FRAME-RATE in thousandths of a frame per second (printed with three decimals).
    public var frameRateMillihertz: Int?
    public var mediaPlaylistURI: String

    public init(bandwidth: Int, averageBandwidth: Int? = nil, codecs: String, resolution: (width: Int, height: Int)?,
                frameRateMillihertz: Int? = nil, mediaPlaylistURI: String) {
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRateMillihertz = frameRateMillihertz
        self.mediaPlaylistURI = mediaPlaylistURI
    }

    public static func == (a: MultivariantPlaylist, b: MultivariantPlaylist) -> Bool { a.render() == b.render() }

    public func render() -> String {
        var attributes = ["BANDWIDTH=\(bandwidth)"]
        if let averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(averageBandwidth)") }
        attributes.append("CODECS=\"\(codecs)\"")
        if let resolution { attributes.append("RESOLUTION=\(resolution.width)x\(resolution.height)") }
        if let rate = frameRateMillihertz {
            let fraction = String(rate % 1000)
            attributes.append("FRAME-RATE=\(rate / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction)
        }
        return ["#EXTM3U", "#EXT-X-INDEPENDENT-SEGMENTS",
                "#EXT-X-STREAM-INF:" + attributes.joined(separator: ","), mediaPlaylistURI]
            .joined(separator: "\n") + "\n"
    }
}
