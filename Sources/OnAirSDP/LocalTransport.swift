/// Our side of the transport, written into answers and offers: ICE credentials (RFC 8839
/// §5.4), the DTLS certificate fingerprint (RFC 8122) and our candidates.
public struct LocalTransport: Sendable, Equatable {
    public var iceUfrag: String
    public var icePassword: String
    public var fingerprint: DTLSFingerprint
    /// Every candidate we have; an ICE-lite server knows them all up front (RFC 8445 §2.5).
    public var candidates: [ICECandidate]
    /// Writes `a=ice-lite` at session level (the relay); a full-ICE client sets false.
    public var iceLite: Bool
    /// The o= line's sess-id. Defaults to a value derived from the credentials so that the
    /// functions stay pure and repeatable.
    public var sessionID: UInt64

    public init(iceUfrag: String, icePassword: String, fingerprint: DTLSFingerprint, candidates: [ICECandidate] = [],
                iceLite: Bool = true, sessionID: UInt64? = nil) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.iceLite = iceLite
        self.sessionID = sessionID ?? Self.derivedSessionID(iceUfrag + ":" + icePassword)
    }

    /// FNV-1a (64-bit) of the text, kept below 2^62 like the ids browsers write.
    static func derivedSessionID(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash & 0x3FFF_FFFF_FFFF_FFFF
    }
}
