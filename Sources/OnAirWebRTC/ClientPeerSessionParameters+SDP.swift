import OnAirDTLS
import OnAirSDP
import OnAirWire

/// Building a ``ClientPeerSessionParameters`` from the answer to our offer.
extension ClientPeerSessionParameters {
    /// From a checked WHIP answer (`SDPNegotiator.acceptAnswer`).
    /// - Throws: ``ClientPeerSessionError`` when the answer names no usable candidate or an
    ///   unsupported fingerprint hash.
    public init(negotiated: NegotiatedSession, localUfrag: String, localPassword: String,
                certificate: DTLSCertificate) throws(ClientPeerSessionError) {
        let role: DTLSRole = negotiated.localSetup == .active ? .client : .server
        try self.init(localUfrag: localUfrag, localPassword: localPassword,
                      remoteUfrag: negotiated.remoteUfrag, remotePassword: negotiated.remotePassword,
                      candidates: negotiated.remoteCandidates, fingerprint: negotiated.remoteFingerprint,
                      role: role, certificate: certificate)
    }

    /// From any answer to our offer, reading only the transport (RFC 9143 §7.1: the
    /// BUNDLE-tagged m= line, with session-level defaults). Media details are the caller's: a
    /// WHEP viewer reads payload types from the answer itself, since `acceptAnswer` checks a
    /// WHIP publisher's (send-only) exchange.
    public init(answer: SessionDescription, localUfrag: String, localPassword: String,
                certificate: DTLSCertificate) throws(ClientPeerSessionError) {
        let accepted = answer.media.filter { !$0.isRejected }
        let taggedMid = answer.bundleMids?.first { mid in accepted.contains { $0.mid == mid } }
        guard let tagged = accepted.first(where: { $0.mid == taggedMid }) ?? accepted.first else {
            throw .unusableAnswer("the answer rejected every m-line")
        }
        guard let ufrag = answer.iceUfrag(for: tagged), let password = answer.icePassword(for: tagged) else {
            throw .unusableAnswer("the answer has no a=ice-ufrag/a=ice-pwd (RFC 8839 §5.4)")
        }
        let fingerprints = answer.fingerprints(for: tagged)
        guard let fingerprint = fingerprints.first(where: { $0.algorithm == "sha-256" }) ?? fingerprints.first else {
            throw .unusableAnswer("the answer has no a=fingerprint (RFC 8122 §5)")
        }
        let role: DTLSRole
        switch answer.setup(for: tagged) {
        case .passive: role = .client
        case .active: role = .server
        case let other:
            throw .unusableAnswer("the answer's a=setup must be active or passive (RFC 8842 §5.2), found \(other?.rawValue ?? "none")")
        }
        // Candidates may sit on any bundled m= line; all share the tagged transport.
        var candidates = tagged.candidates
        for media in accepted where media.mid != tagged.mid { candidates += media.candidates }
        try self.init(localUfrag: localUfrag, localPassword: localPassword, remoteUfrag: ufrag, remotePassword: password,
                      candidates: candidates, fingerprint: fingerprint, role: role, certificate: certificate)
    }

    private init(localUfrag: String, localPassword: String, remoteUfrag: String, remotePassword: String,
                 candidates: [ICECandidate], fingerprint: DTLSFingerprint, role: DTLSRole,
                 certificate: DTLSCertificate) throws(ClientPeerSessionError) {
        let addresses = Self.udpAddresses(candidates)
        guard !addresses.isEmpty else {
            throw .unusableAnswer("the answer has no UDP candidate with an IP address (mDNS names are not resolved)")
        }
        let peerFingerprint: PeerFingerprint
        do {
            peerFingerprint = try PeerFingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes)
        } catch {
            throw .unusableAnswer("cannot use the answer's fingerprint: \(error)")
        }
        self.init(localUfrag: localUfrag, localPassword: localPassword, remoteUfrag: remoteUfrag, remotePassword: remotePassword,
                  remoteCandidates: addresses, certificate: certificate, remoteFingerprint: peerFingerprint, dtlsRole: role)
    }

    /// Passive TCP candidates (RFC 6544 §4.5) of component 1 with literal addresses, highest
    /// priority first: where an active ICE-TCP client connects.
    public static func passiveTCPAddresses(_ candidates: [ICECandidate]) -> [TransportAddress] {
        var seen: [TransportAddress] = []
        for candidate in candidates.sorted(by: { $0.priority > $1.priority })
        where !candidate.isUDP && candidate.tcpType == "passive" && candidate.component == 1 {
            guard let address = TransportAddress(host: candidate.address, port: candidate.port, transport: .tcp),
                  !seen.contains(address) else { continue }
            seen.append(address)
        }
        return seen
    }

    /// UDP candidates of component 1 with literal addresses, highest priority first (RFC 8445
    /// §6.1.2.6 orders checks by pair priority; with one local candidate that is theirs).
    static func udpAddresses(_ candidates: [ICECandidate]) -> [TransportAddress] {
        var seen: [TransportAddress] = []
        for candidate in candidates.sorted(by: { $0.priority > $1.priority })
        where candidate.isUDP && candidate.component == 1 {
            guard let address = TransportAddress(host: candidate.address, port: candidate.port),
                  !seen.contains(address) else { continue }
            seen.append(address)
        }
        return seen
    }
}
