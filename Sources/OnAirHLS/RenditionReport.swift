/// RFC 8216bis §4.4.5.4 EXT-X-RENDITION-REPORT: where another rendition of the same
/// presentation stands, so that a client switching to it can ask for its next part with a
/// blocking request straight away instead of first loading its playlist (Appendix B).
public struct RenditionReport: Sendable, Equatable {
    /// The other rendition's Media Playlist, relative to this one.
    public var uri: String
    /// The Media Sequence Number of its last Partial Segment (or Media Segment).
    public var lastMediaSequence: Int
    /// The Part Index of that last Partial Segment within its segment, when it has parts.
    public var lastPart: Int?

    public init(uri: String, lastMediaSequence: Int, lastPart: Int?) {
        self.uri = uri
        self.lastMediaSequence = lastMediaSequence
        self.lastPart = lastPart
    }

    /// The report of a rendition whose progress is `progress`, nil before it has media.
    public init?(uri: String, progress: PlaylistProgress) {
        if let part = progress.lastPart {
            self.init(uri: uri, lastMediaSequence: part.mediaSequence, lastPart: part.index)
        } else if let sequence = progress.lastMediaSequence {
            self.init(uri: uri, lastMediaSequence: sequence, lastPart: nil)
        } else {
            return nil
        }
    }

    var line: String {
        "#EXT-X-RENDITION-REPORT:URI=\"\(uri)\",LAST-MSN=\(lastMediaSequence)" + (lastPart.map { ",LAST-PART=\($0)" } ?? "")
    }
}
