import CLiveOpenSSL
import OnAirCrypto

/// Builds the `SSL_CTX` for a WebRTC DTLS endpoint (RFC 8827 §6.5, RFC 5764).
enum DTLSContextFactory {
    /// ECDHE only (forward secrecy, RFC 8827 §6.5), AEAD first, CBC for older peers. ECDSA
    /// suites serve browsers and aiortc (ECDSA certificates); RSA suites serve GStreamer's
    /// webrtcbin, whose certificate is RSA. No ChaCha20-Poly1305: every WebRTC stack has
    /// AES-GCM, and ChaCha's shorter minimum record would weaken ``DTLSRecordFilter``.
    static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
        "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA",
    ].joined(separator: ":")

    /// Key-exchange groups every WebRTC stack offers.
    static let groups = "X25519:P-256"

    /// A new context (caller owns it; `SSL_new` takes its own reference).
    static func make(certificate: DTLSCertificate, profiles: [SRTPProfile]) throws -> OpaquePointer {
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw OpenSSLError.drain("SSL_CTX_new(DTLS)") }
        do {
            try configure(ctx, certificate: certificate, profiles: profiles)
            return ctx
        } catch {
            SSL_CTX_free(ctx)
            throw error
        }
    }

    private static func configure(_ ctx: OpaquePointer, certificate: DTLSCertificate, profiles: [SRTPProfile]) throws {
        // RFC 8827 §6.5: DTLS 1.2 or later; OpenSSL 3.0 has no DTLS 1.3, so exactly 1.2.
        guard clive_SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1,
              clive_SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) == 1 else {
            throw OpenSSLError.drain("SSL_CTX_set_{min,max}_proto_version(DTLS 1.2)")
        }
        guard SSL_CTX_set_cipher_list(ctx, cipherList) == 1 else { throw OpenSSLError.drain("SSL_CTX_set_cipher_list") }
        guard clive_SSL_CTX_set1_groups_list(ctx, groups) == 1 else { throw OpenSSLError.drain("SSL_CTX_set1_groups_list") }

        guard SSL_CTX_use_certificate(ctx, certificate.x509) == 1,
              SSL_CTX_use_PrivateKey(ctx, certificate.privateKey) == 1,
              SSL_CTX_check_private_key(ctx) == 1 else {
            throw OpenSSLError.drain("SSL_CTX_use_certificate/PrivateKey")
        }

        // Both sides must show a certificate: the server asks for one and fails without it
        // (RFC 5763 §5). Our callback replaces chain building, which would reject self-signed
        // certificates, with the SDP fingerprint comparison.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        SSL_CTX_set_cert_verify_callback(ctx, { store, _ in SSLCallbackContext.verifyCertificate(store) }, nil)

        // RFC 5764 §4.1.1 use_srtp, in our order of preference. Returns 0 on success.
        let srtp = profiles.map(\.openSSLName).joined(separator: ":")
        guard SSL_CTX_set_tlsext_use_srtp(ctx, srtp) == 0 else {
            throw OpenSSLError.drain("SSL_CTX_set_tlsext_use_srtp(\(srtp))")
        }

        clive_SSL_CTX_set_read_ahead(ctx, 1)
        // We set the MTU ourselves (no socket to query). Tickets and renegotiation have no
        // place in WebRTC, where every association is fresh. No encrypt-then-MAC (RFC 7366):
        // with it, OpenSSL 3.0 aborts the association on a single forged CBC record (bad MAC,
        // measured) instead of dropping it as RFC 6347 §4.1.2.7 asks; CBC is only a fallback
        // behind AES-GCM, which every WebRTC stack prefers.
        _ = SSL_CTX_set_options(ctx, clive_SSL_OP_NO_QUERY_MTU() | clive_SSL_OP_NO_TICKET()
                                     | clive_SSL_OP_NO_RENEGOTIATION() | clive_SSL_OP_CIPHER_SERVER_PREFERENCE()
                                     | clive_SSL_OP_NO_ENCRYPT_THEN_MAC())
    }
}
