/// The sources we send on each kind of media, announced with `a=msid` (RFC 8830), `a=ssrc`
/// cname/msid (RFC 5576, RFC 7022) and `a=ssrc-group:FID` for RTX (RFC 4588 §8.3).
public struct LocalSSRCs: Sendable, Equatable {
    /// One outgoing track.
    public struct Track: Sendable, Equatable {
        public var ssrc: UInt32
        /// The RTX SSRC; RTX is only negotiated when this is set.
        public var rtxSSRC: UInt32?
        public var trackID: String
        /// RFC 8853 simulcast: the rids of the encodings sent, best first; empty for one
        /// encoding. Layers are then told apart by their RFC 8852 rid extension, not by a=ssrc.
        public var simulcastRIDs: [String]

        public init(ssrc: UInt32, rtxSSRC: UInt32? = nil, trackID: String, simulcastRIDs: [String] = []) {
            self.ssrc = ssrc
            self.rtxSSRC = rtxSSRC
            self.trackID = trackID
            self.simulcastRIDs = simulcastRIDs
        }
    }

    /// RFC 7022 CNAME shared by all our sources.
    public var cname: String
    /// The MediaStream id written first in `a=msid`.
    public var streamID: String
    public var audio: Track?
    public var video: Track?

    public init(cname: String, streamID: String, audio: Track? = nil, video: Track? = nil) {
        self.cname = cname
        self.streamID = streamID
        self.audio = audio
        self.video = video
    }

    public func track(for kind: MediaKind) -> Track? {
        switch kind {
        case .audio: return audio
        case .video: return video
        default: return nil
        }
    }
}
