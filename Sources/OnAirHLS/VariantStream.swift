/// One Variant Stream of a Multivariant Playlist (RFC 8216bis §4.4.6.2 EXT-X-STREAM-INF):
/// a media playlist carrying every track, with what a player needs to choose it.
public struct VariantStream: Sendable, Equatable {
    /// BANDWIDTH: peak segment bit rate, bits per second (§4.4.6.2).
    public var bandwidth: Int
    /// AVERAGE-BANDWIDTH, when measured.
    public var averageBandwidth: Int?
    /// CODECS: RFC 6381 formats of every track, e.g. "avc1.42e01f,mp4a.40.2".
    public var codecs: String
    public var resolution: Resolution?
    /// FRAME-RATE in thousandths of a frame per second (printed with three decimals).
    public var frameRateMillihertz: Int?
    public var uri: String

    public struct Resolution: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public init(bandwidth: Int, averageBandwidth: Int? = nil, codecs: String, resolution: Resolution?,
                frameRateMillihertz: Int? = nil, uri: String) {
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRateMillihertz = frameRateMillihertz
        self.uri = uri
    }

    /// The EXT-X-STREAM-INF line and the URI line.
    var lines: [String] {
        var attributes = ["BANDWIDTH=\(bandwidth)"]
        if let averageBandwidth { attributes.append("AVERAGE-BANDWIDTH=\(averageBandwidth)") }
        attributes.append("CODECS=\"\(codecs)\"")
        if let resolution { attributes.append("RESOLUTION=\(resolution.width)x\(resolution.height)") }
        if let rate = frameRateMillihertz {
            let fraction = String(rate % 1000)
            attributes.append("FRAME-RATE=\(rate / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction)
        }
        return ["#EXT-X-STREAM-INF:" + attributes.joined(separator: ","), uri]
    }
}
