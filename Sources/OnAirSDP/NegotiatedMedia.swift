/// One accepted m= line after negotiation: what the RTP layer needs to send or receive it.
public struct NegotiatedMedia: Sendable, Equatable {
    public var mid: String
    public var kind: MediaKind
    public var codec: NegotiatedCodec
    /// Header extensions both sides keep: id → URI (RFC 8285), ids as used on this leg.
    public var extensions: [UInt8: String]
    /// The peer's media SSRC, when its description announced one.
    public var remoteSSRC: UInt32?
    /// The peer's RTX SSRC, from `a=ssrc-group:FID`.
    public var remoteRTXSSRC: UInt32?
    public var remoteCNAME: String?
    /// Simulcast rids the peer sends (RFC 8853), in its order; empty without simulcast.
    public var rids: [String]
    /// Our SSRCs on this m= line when we send (egress, or our own offer).
    public var localSSRC: UInt32?
    public var localRTXSSRC: UInt32?

    public init(mid: String, kind: MediaKind, codec: NegotiatedCodec, extensions: [UInt8: String] = [:],
                remoteSSRC: UInt32? = nil, remoteRTXSSRC: UInt32? = nil, remoteCNAME: String? = nil, rids: [String] = [],
                localSSRC: UInt32? = nil, localRTXSSRC: UInt32? = nil) {
        self.mid = mid
        self.kind = kind
        self.codec = codec
        self.extensions = extensions
        self.remoteSSRC = remoteSSRC
        self.remoteRTXSSRC = remoteRTXSSRC
        self.remoteCNAME = remoteCNAME
        self.rids = rids
        self.localSSRC = localSSRC
        self.localRTXSSRC = localRTXSSRC
    }

    /// The id this leg uses for the extension `uri`, if negotiated.
    public func extensionID(for uri: String) -> UInt8? {
        extensions.first(where: { $0.value == uri })?.key
    }
}
