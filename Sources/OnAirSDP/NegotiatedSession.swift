/// Everything the transport (ICE-lite, DTLS-SRTP) and RTP layers need from a finished
/// offer/answer exchange.
public struct NegotiatedSession: Sendable, Equatable {
    /// Accepted m= lines, in m= line order.
    public var media: [NegotiatedMedia]
    /// The peer's ICE credentials (RFC 8839 §5.4) from the BUNDLE-tagged m= line.
    public var remoteUfrag: String
    public var remotePassword: String
    /// The certificate fingerprint the peer's DTLS certificate must match (RFC 8122 §5).
    public var remoteFingerprint: DTLSFingerprint
    public var localSetup: DTLSSetupRole
    public var remoteCandidates: [ICECandidate]
    /// The BUNDLE group as written in our description (or in the answer we accepted).
    public var bundleMids: [String]
    public var remoteICELite: Bool
    /// The peer said `a=end-of-candidates` (RFC 8840 §8.2): no trickle will follow.
    public var remoteEndOfCandidates: Bool

    public init(media: [NegotiatedMedia], remoteUfrag: String, remotePassword: String, remoteFingerprint: DTLSFingerprint,
                localSetup: DTLSSetupRole, remoteCandidates: [ICECandidate], bundleMids: [String],
                remoteICELite: Bool = false, remoteEndOfCandidates: Bool = false) {
        self.media = media
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.remoteFingerprint = remoteFingerprint
        self.localSetup = localSetup
        self.remoteCandidates = remoteCandidates
        self.bundleMids = bundleMids
        self.remoteICELite = remoteICELite
        self.remoteEndOfCandidates = remoteEndOfCandidates
    }

    /// The first accepted m= line of `kind`.
    public func media(of kind: MediaKind) -> NegotiatedMedia? {
        media.first { $0.kind == kind }
    }

    public func media(withMid mid: String) -> NegotiatedMedia? {
        media.first { $0.mid == mid }
    }
}
