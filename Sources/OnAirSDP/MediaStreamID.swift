/// RFC 8830 §2 `a=msid:<stream id> [<track id>]`: which MediaStream (and track) an m= line feeds.
public struct MediaStreamID: SDPAttributeValue {
    public static let attributeName = "msid"

    public var streamID: String
    /// The "appdata" part, in practice the sender's track id.
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard parts.count == 1 || parts.count == 2 else {
            throw SDPError("a=msid must be <stream id> [<track id>]")
        }
        self.init(streamID: String(parts[0]), trackID: parts.count == 2 ? String(parts[1]) : nil)
    }

    public var attributeValue: String {
        guard let trackID else { return streamID }
        return streamID + " " + trackID
    }
}
