import OnAirDTLS

/// What a ``PeerSession`` needs from signalling: both sides' ICE credentials, our certificate,
/// the peer's fingerprint and which DTLS role the SDP exchange gave us.
public struct PeerSessionParameters: Sendable {
    public var localUfrag: String
    public var localPassword: String
    public var remoteUfrag: String?
    public var remotePassword: String?
    public var certificate: DTLSCertificate
    public var remoteFingerprint: PeerFingerprint
    public var dtlsRole: DTLSRole
    /// RFC 7675 §5.1: consent is lost after this long without authenticated traffic.
    public var consentTimeout: Duration
    /// Time from creation to an established DTLS association before we give up.
    public var connectTimeout: Duration

    public init(localUfrag: String, localPassword: String, remoteUfrag: String?, remotePassword: String?,
                certificate: DTLSCertificate, remoteFingerprint: PeerFingerprint, dtlsRole: DTLSRole,
                consentTimeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(15)) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.certificate = certificate
        self.remoteFingerprint = remoteFingerprint
        self.dtlsRole = dtlsRole
        self.consentTimeout = consentTimeout
        self.connectTimeout = connectTimeout
    }
}
