/// The peer's transport parameters, read from the BUNDLE-tagged m= line with session-level
/// defaults (RFC 9143 §7.1: all bundled m= lines share the tagged one's transport).
struct RemoteTransport {
    var ufrag: String
    var password: String
    var fingerprint: DTLSFingerprint
    var setup: DTLSSetup?
    var candidates: [ICECandidate]
    var endOfCandidates: Bool
    var iceLite: Bool

    /// Fingerprint algorithms in the order we prefer them (RFC 8122 §5; sha-256 is what every
    /// WebRTC stack writes first).
    static let preferredAlgorithms = ["sha-256", "sha-384", "sha-512", "sha-1"]

    init(_ description: SessionDescription, tagged media: MediaDescription, side: String) throws(NegotiationError) {
        let where_ = "the \(side) (mid \(media.mid ?? "?"))"
        guard let ufrag = description.iceUfrag(for: media), !ufrag.isEmpty else {
            throw .malformed("\(where_) has no a=ice-ufrag (RFC 8839 §5.4)")
        }
        guard let password = description.icePassword(for: media), !password.isEmpty else {
            throw .malformed("\(where_) has no a=ice-pwd (RFC 8839 §5.4)")
        }
        let fingerprints = description.fingerprints(for: media)
        guard !fingerprints.isEmpty else {
            throw .malformed("\(where_) has no a=fingerprint (RFC 8122 §5)")
        }
        var chosen: DTLSFingerprint? = nil
        for algorithm in Self.preferredAlgorithms where chosen == nil {
            chosen = fingerprints.first { $0.algorithm == algorithm }
        }
        guard let chosen else {
            let offered = fingerprints.map(\.algorithm).joined(separator: ", ")
            throw .unacceptable("no supported a=fingerprint hash function (offered: \(offered); supported: sha-256, sha-384, sha-512, sha-1)")
        }
        self.ufrag = ufrag
        self.password = password
        self.fingerprint = chosen
        self.setup = description.setup(for: media)
        self.candidates = media.candidates
        self.endOfCandidates = media.endOfCandidates || description.endOfCandidates
        self.iceLite = description.iceLite
    }
}
