import OnAirCrypto
import OnAirDTLS
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// Our WHIP offer (RFC 9725 §4.2) and what we must remember to use its answer: ICE
/// credentials, SSRCs, the certificate whose fingerprint the offer carries.
struct PublishOffer {
    let description: SessionDescription
    let ufrag: String
    let password: String
    let ssrcs: LocalSSRCs
    let certificate: DTLSCertificate

    /// - Parameter level: the H.264 level our picture size and rate need (ITU-T H.264 Table A-1),
    ///   offered with Constrained Baseline, the profile every WebRTC receiver decodes.
    /// - Parameter simulcastRIDs: the layers' rids, best first (RFC 8853); empty for one encoding.
    /// - Parameter relay: our TURN allocation's relayed and server-reflexive addresses, offered
    ///   as a relay candidate (RFC 8445 §5.1.1.2).
    /// - Parameter hostCandidates: false for relay-only (a browser's iceTransportPolicy "relay").
    init(port: UInt16, endpointHost: String, certificate: DTLSCertificate, audio: Bool, level: H264Level,
         simulcastRIDs: [String] = [], relay: (relayed: TransportAddress, mapped: TransportAddress?)? = nil,
         hostCandidates: Bool = true) {
        let credentials = ClientPeerSessionParameters.generateCredentials()
        ufrag = credentials.ufrag
        password = credentials.password
        self.certificate = certificate
        let local = LocalTransport(iceUfrag: ufrag, icePassword: password,
                                   fingerprint: DTLSFingerprint(algorithm: "sha-256", bytes: certificate.fingerprintSHA256),
                                   candidates: (hostCandidates ? HostCandidates.candidates(port: port, endpointHost: endpointHost) : [])
                                       + (relay.map { [HostCandidates.relayCandidate(relayed: $0.relayed, mapped: $0.mapped)] } ?? []),
                                   iceLite: false, sessionID: SecureRandom.uint64() >> 2)
        ssrcs = LocalSSRCs(cname: "onair-" + String(SecureRandom.uint32(), radix: 36), streamID: "onair-broadcast",
                           audio: audio ? .init(ssrc: SecureRandom.uint32(), trackID: "audio") : nil,
                           // RTX (RFC 4588) on its own SSRC; simulcast layers resend on their own SSRCs.
                           video: .init(ssrc: SecureRandom.uint32(), rtxSSRC: simulcastRIDs.isEmpty ? SecureRandom.uint32() : nil,
                                        trackID: "video", simulcastRIDs: simulcastRIDs))
        description = SDPNegotiator.makeOffer(local: local, ssrcs: ssrcs,
                                              videoProfileLevelID: H264ProfileLevelID(profile: .constrainedBaseline, level: level))
    }
}
