import CLiveOpenSSL
import OnAirCrypto

/// Builds the `SSL_CTX` of a ``TLSClientStream``: TLS 1.2 or later (RFC 8656 §3.1 asks for
/// TLS 1.2 at least, RFC 9325 §3.1.1 forbids older), the server's certificate verified against
/// the system's CA store and, for private deployments, an extra CA file.
enum TLSClientContextFactory {
    /// A new context (the caller owns it; `SSL_new` takes its own reference).
    static func make(caFile: String?) throws(TLSClientError) -> OpaquePointer {
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw failure("SSL_CTX_new(TLS client)") }
        guard clive_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1 else {
            SSL_CTX_free(ctx)
            throw failure("SSL_CTX_set_min_proto_version(TLS 1.2)")
        }
        // The system store (OpenSSL's default file and directory, or SSL_CERT_FILE/SSL_CERT_DIR).
        // A system without one still works with `caFile`, so its absence is not fatal here:
        // the handshake then fails with "unable to get local issuer certificate".
        if SSL_CTX_set_default_verify_paths(ctx) != 1 { ERR_clear_error() }
        if let caFile, SSL_CTX_load_verify_locations(ctx, caFile, nil) != 1 {
            SSL_CTX_free(ctx)
            throw failure("cannot load the CA file \(caFile) (PEM certificates expected)")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        // No renegotiation (RFC 7457 §2.2); a fresh connection each time, so no tickets.
        _ = SSL_CTX_set_options(ctx, clive_SSL_OP_NO_RENEGOTIATION() | clive_SSL_OP_NO_TICKET())
        return ctx
    }

    private static func failure(_ operation: String) -> TLSClientError {
        let queue = OpenSSLError.drain(operation).queue
        return TLSClientError(queue.isEmpty ? operation : "\(operation): \(queue.joined(separator: "; "))")
    }
}
