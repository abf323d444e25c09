import CLiveOpenSSL

/// What OpenSSL's C callbacks need to know about one endpoint: the fingerprint the peer's
/// certificate must match and the retransmission timer's first value. OpenSSL callbacks
/// cannot capture Swift state, so the endpoint hangs this object on its `SSL` as ex-data
/// slot 0 (the "app data" slot) and the callbacks find it there.
///
/// Not Sendable: used only inside OpenSSL calls the owning endpoint makes.
final class SSLCallbackContext {
    /// The `a=fingerprint` from the peer's SDP; nil accepts any certificate (tests only).
    let expectedPeerFingerprint: PeerFingerprint?
    /// First retransmission timeout in microseconds (RFC 6347 §4.2.4.1 suggests 1 s).
    let initialTimerMicroseconds: UInt32
    /// Why we rejected the peer's certificate, to report instead of OpenSSL's generic
    /// "certificate verify failed".
    var rejection: String?

    /// RFC 6347 §4.2.4.1: timers double on each retransmission up to at least 60 s.
    static let maximumTimerMicroseconds: UInt32 = 60_000_000

    init(expectedPeerFingerprint: PeerFingerprint?, initialTimer: Duration) {
        self.expectedPeerFingerprint = expectedPeerFingerprint
        let (seconds, attoseconds) = initialTimer.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        self.initialTimerMicroseconds = UInt32(clamping: max(micros, 1_000))
    }

    /// Attaches `self` to `ssl` and installs the per-`SSL` timer callback. The endpoint keeps
    /// `self` alive for as long as `ssl` exists (it frees `ssl` first in its `deinit`).
    func attach(to ssl: OpaquePointer) {
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        DTLS_set_timer_cb(ssl) { ssl, previous in
            guard let context = SSLCallbackContext.of(ssl) else { return previous == 0 ? 1_000_000 : previous * 2 }
            return context.nextTimer(after: previous)
        }
    }

    /// The next retransmission timeout: the initial value, then doubling (RFC 6347 §4.2.4.1).
    func nextTimer(after previous: UInt32) -> UInt32 {
        guard previous > 0 else { return initialTimerMicroseconds }
        return min(previous.multipliedReportingOverflow(by: 2).partialValue, Self.maximumTimerMicroseconds)
    }

    /// Decides whether the peer's leaf certificate is acceptable: WebRTC certificates are
    /// self-signed, so there is no chain to verify; the only check is the SDP fingerprint
    /// (RFC 8122 §5, RFC 8827 §6.5).
    func accept(peerCertificate: OpaquePointer) -> Bool {
        guard let expected = expectedPeerFingerprint else { return true }
        if expected.matches(certificate: peerCertificate) { return true }
        let actual = PeerFingerprint.digest(of: peerCertificate, algorithm: expected.algorithm)
            .flatMap { try? PeerFingerprint(algorithm: expected.algorithm, bytes: $0) }
        rejection = "peer certificate fingerprint mismatch: SDP says \(expected.sdpValue), certificate is \(actual?.sdpValue ?? "unreadable")"
        return false
    }

    static func of(_ ssl: OpaquePointer?) -> SSLCallbackContext? {
        guard let ssl, let raw = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<SSLCallbackContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// For `SSL_CTX_set_cert_verify_callback`: replaces OpenSSL's chain verification (which
    /// would reject a self-signed certificate) with ``accept(peerCertificate:)``. Returning 0
    /// makes OpenSSL abort the handshake with a bad_certificate alert to the peer.
    static func verifyCertificate(_ store: OpaquePointer?) -> Int32 {
        guard let store,
              let rawSSL = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
              let context = SSLCallbackContext.of(OpaquePointer(rawSSL)) else { return 0 }
        guard let leaf = X509_STORE_CTX_get0_cert(store) else {
            context.rejection = "peer presented no certificate"
            return 0
        }
        guard context.accept(peerCertificate: leaf) else {
            X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
            return 0
        }
        return 1
    }
}
