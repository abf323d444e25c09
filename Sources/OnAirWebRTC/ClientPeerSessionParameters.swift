import OnAirCrypto
import OnAirDTLS
import OnAirSTUN
import OnAirWire

/// What a ``ClientPeerSession`` needs once the offer/answer exchange is done: both sides' ICE
/// credentials, the answerer's candidates, our certificate, the answerer's fingerprint and the
/// DTLS role the answer's `a=setup` gave us (RFC 8842 §5.2).
public struct ClientPeerSessionParameters: Sendable {
    /// Our credentials, written in our offer (RFC 8839 §5.4). The peer's checks to us (a
    /// full-ICE answerer sends them) are signed with `localPassword`.
    public var localUfrag: String
    public var localPassword: String
    /// The answerer's credentials: our checks carry USERNAME "remoteUfrag:localUfrag" and are
    /// signed with `remotePassword` (RFC 8445 §7.2.2).
    public var remoteUfrag: String
    public var remotePassword: String
    /// The answer's UDP candidates, in the order to check them.
    public var remoteCandidates: [TransportAddress]
    public var certificate: DTLSCertificate
    /// The answer's `a=fingerprint`: the peer's DTLS certificate must hash to it (RFC 8827 §6.5).
    public var remoteFingerprint: PeerFingerprint
    /// `.client` when the answer said `a=setup:passive`, `.server` for `a=setup:active`.
    public var dtlsRole: DTLSRole
    /// SRTP profiles offered (DTLS client) or accepted (DTLS server), preferred first.
    public var profiles: [SRTPProfile]
    /// Check pacing, retransmissions and consent timers (RFC 8445, RFC 8489, RFC 7675).
    public var checker: ICECheckerConfiguration
    /// From creation to an established DTLS association before we give up.
    public var connectTimeout: Duration

    public init(localUfrag: String, localPassword: String, remoteUfrag: String, remotePassword: String,
                remoteCandidates: [TransportAddress], certificate: DTLSCertificate, remoteFingerprint: PeerFingerprint,
                dtlsRole: DTLSRole, profiles: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
                checker: ICECheckerConfiguration = ClientPeerSessionParameters.defaultChecker,
                connectTimeout: Duration = .seconds(15)) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.remoteCandidates = remoteCandidates
        self.certificate = certificate
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.profiles = profiles
        self.checker = checker
        self.connectTimeout = connectTimeout
    }

    /// RFC defaults, except consent checks every 2 s (randomised 1.6-2.4 s) instead of 5 s.
    /// Our viewers send no other traffic, and a relay that lets consent lapse after 5 s of
    /// silence (OnAir's default, RFC 7675 allows the sender 4-6 s) would otherwise drop them.
    public static var defaultChecker: ICECheckerConfiguration {
        var configuration = ICECheckerConfiguration()
        configuration.consentInterval = .seconds(2)
        return configuration
    }

    /// Fresh ICE credentials for an offer: a 4-character ufrag carries 24 random bits and a
    /// 22-character password 128 (RFC 8445 §5.3 minimums), from the `ice-char` alphabet.
    public static func generateCredentials() -> (ufrag: String, password: String) {
        (randomICEString(8), randomICEString(24))
    }

    /// RFC 8839 §5.4 ice-char: ALPHA / DIGIT / "+" / "/".
    private static func randomICEString(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        return String(SecureRandom.bytes(count).map { alphabet[Int($0) & 63] })
    }
}
