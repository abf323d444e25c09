import CLiveOpenSSL
import Glibc
import OnAirCrypto

/// The client end of a TLS connection (RFC 8446, RFC 5246) over a byte stream, sans-I/O: bytes
/// from the socket in (``receive(_:plaintext:)``), plaintext out; plaintext in (``write(_:)``),
/// bytes for the socket out (``takeOutput(_:)``). For TURN over TLS (`turns:`, RFC 8656 §3.1).
///
/// OpenSSL runs the connection through a pair of memory BIOs, so nothing blocks and the caller
/// owns the socket. The server's certificate must chain to the system's CA store or the extra CA
/// file, and name ``serverName`` (RFC 6125 §6: a DNS name in a subjectAltName; an IP literal
/// must be an iPAddress entry). A DNS name is also sent as SNI (RFC 6066 §3; an IP literal is
/// not, as §3 forbids).
///
/// The ClientHello is ready to take after `init`. Plaintext written before the handshake ends
/// waits (up to ``maximumPending`` bytes) and goes out once it has. Steady state, a write and
/// its output allocate nothing of ours: records go through OpenSSL's own write buffer and the
/// outbound BIO, whose memory is kept, into one buffer reused for every ``takeOutput(_:)``.
/// (`SSL_write` itself allocates in OpenSSL 3.0's record layer: 2 a record under TLS 1.2, 3
/// under TLS 1.3, measured on 3.0.19.)
///
/// Not Sendable: owned by one connection on one thread, like the socket it serves.
public final class TLSClientStream {
    public enum State: Equatable, Sendable {
        case handshaking
        case established
        /// Our close_notify went out, or the server's came in (RFC 8446 §6.1).
        case closed
        /// The handshake or the connection failed; the reason names the server.
        case failed(String)
    }

    /// The host of the URI: the name the certificate must carry.
    public let serverName: String
    public private(set) var state: State = .handshaking
    /// Plaintext that may wait for the handshake.
    public static let maximumPending = 64 * 1024

    /// `SSL *`, owned; it owns both BIOs.
    private let ssl: OpaquePointer
    /// Socket bytes for OpenSSL to read.
    private let inbound: OpaquePointer
    /// Records OpenSSL wrote for the socket.
    private let outbound: OpaquePointer
    private var pending: [UInt8] = []
    /// Where `SSL_read` puts plaintext (a record's worth, RFC 8446 §5.1).
    private let plaintextBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 16)
    /// Where ``takeOutput(_:)`` copies records out of the outbound BIO.
    private let outputBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 17_408, alignment: 16)

    /// - Parameters:
    ///   - serverName: the URI's host, a DNS name or an IPv4/IPv6 literal (no brackets).
    ///   - caFile: PEM CA certificates to trust besides the system's store.
    public init(serverName: String, caFile: String? = nil) throws(TLSClientError) {
        self.serverName = serverName
        let ctx = try TLSClientContextFactory.make(caFile: caFile)
        defer { SSL_CTX_free(ctx) }  // SSL_new holds its own reference.
        let ssl = SSL_new(ctx), inbound = BIO_new(BIO_s_mem()), outbound = BIO_new(BIO_s_mem())
        guard let ssl, let inbound, let outbound else {
            SSL_free(ssl)
            BIO_free(inbound)
            BIO_free(outbound)
            plaintextBuffer.deallocate()
            outputBuffer.deallocate()
            throw TLSClientError(OpenSSLError.drain("SSL_new/BIO_new").description)
        }
        // An empty inbound BIO means "wait for more" (WANT_READ), not end of stream.
        _ = clive_BIO_set_mem_eof_return(inbound, -1)
        SSL_set_bio(ssl, inbound, outbound)  // the SSL owns both now
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        guard Self.expect(serverName, on: ssl) else {
            throw TLSClientError("cannot check certificates for '\(serverName)': "
                                 + OpenSSLError.drain("SSL_set1_host").description)  // deinit frees ssl
        }
        SSL_set_connect_state(ssl)
        advance { _ in }
    }

    deinit {
        SSL_free(ssl)
        plaintextBuffer.deallocate()
        outputBuffer.deallocate()
    }

    /// The negotiated version, e.g. "TLSv1.3", once established.
    public var protocolVersion: String? {
        guard state == .established, let name = SSL_get_version(ssl) else { return nil }
        return String(cString: name)
    }

    /// Whether records wait for ``takeOutput(_:)``.
    public var hasOutput: Bool { BIO_ctrl_pending(outbound) > 0 }

    /// Takes bytes that arrived from the server; hands each piece of plaintext they completed to
    /// `plaintext` (any split: the caller reassembles its own framing). Check ``state`` and
    /// ``takeOutput(_:)`` afterwards: the handshake may have answered or failed.
    public func receive(_ bytes: UnsafeRawBufferPointer, plaintext: (UnsafeRawBufferPointer) -> Void) {
        guard state == .handshaking || state == .established, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(inbound, base, Int32(bytes.count))  // a memory BIO takes everything
        advance(plaintext)
    }

    /// Encrypts `plaintext` as one record (or several past 16 KiB); before the handshake ends it
    /// waits. False when it cannot be sent: failed, closed, or too much waiting already.
    @discardableResult
    public func write(_ plaintext: UnsafeRawBufferPointer) -> Bool {
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return true }
        switch state {
        case .handshaking:
            guard pending.count + plaintext.count <= Self.maximumPending else { return false }
            pending.append(contentsOf: plaintext)
            return true
        case .established:
            ERR_clear_error()
            // A memory BIO never refuses a write, so SSL_write takes all or fails.
            let written = SSL_write(ssl, base, Int32(plaintext.count))
            if written <= 0 { fail(Self.failure("TLS write to \(serverName)")) }
            return written > 0
        case .closed, .failed:
            return false
        }
    }

    /// Hands the bytes to send to the server to `sink` (in order, in pieces of up to 17 KiB),
    /// and forgets them.
    public func takeOutput(_ sink: (UnsafeRawBufferPointer) -> Void) {
        while BIO_ctrl_pending(outbound) > 0 {
            let count = BIO_read(outbound, outputBuffer.baseAddress, Int32(outputBuffer.count))
            guard count > 0 else { return }
            sink(UnsafeRawBufferPointer(rebasing: outputBuffer[0..<Int(count)]))
        }
    }

    /// Queues close_notify (RFC 8446 §6.1) and ends the stream; take it with ``takeOutput(_:)``.
    public func close() {
        guard state == .handshaking || state == .established else { return }
        ERR_clear_error()
        if state == .established { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
        state = .closed
    }

    // MARK: - Driving OpenSSL

    /// Runs the handshake while it lasts, then reads records until OpenSSL wants more input.
    private func advance(_ plaintext: (UnsafeRawBufferPointer) -> Void) {
        if state == .handshaking {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                state = .established
                writePending()
            } else if !Self.isRetry(SSL_get_error(ssl, result)) {
                fail(handshakeFailure())
                return
            }
        }
        while state == .established {
            ERR_clear_error()
            let count = SSL_read(ssl, plaintextBuffer.baseAddress, Int32(plaintextBuffer.count))
            if count > 0 {
                plaintext(UnsafeRawBufferPointer(rebasing: plaintextBuffer[0..<Int(count)]))
                continue
            }
            let error = SSL_get_error(ssl, count)
            if Self.isRetry(error) { return }
            if error == SSL_ERROR_ZERO_RETURN {
                _ = SSL_shutdown(ssl)  // answer close_notify with ours
                state = .closed
            } else {
                fail(Self.failure("TLS read from \(serverName)"))
            }
        }
    }

    private func writePending() {
        guard !pending.isEmpty else { return }
        let waiting = pending
        pending = []
        waiting.withUnsafeBytes { _ = write($0) }
    }

    /// The certificate's verdict when that was the reason (named by OpenSSL, e.g. "unable to
    /// get local issuer certificate", "hostname mismatch"), else OpenSSL's error queue.
    private func handshakeFailure() -> String {
        let verdict = SSL_get_verify_result(ssl)
        if verdict != X509_V_OK {
            ERR_clear_error()
            let reason = X509_verify_cert_error_string(verdict).map { String(cString: $0) } ?? "error \(verdict)"
            return "TLS certificate verify failed for \(serverName): \(reason)"
        }
        return Self.failure("TLS handshake with \(serverName)")
    }

    private func fail(_ reason: String) {
        state = .failed(reason)
    }

    private static func failure(_ operation: String) -> String {
        let queue = OpenSSLError.drain(operation).queue
        return queue.isEmpty ? "\(operation) failed" : "\(operation) failed: \(queue.joined(separator: "; "))"
    }

    private static func isRetry(_ error: Int32) -> Bool {
        error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE
    }

    /// Sets what the certificate must name: an IP literal as an iPAddress, a DNS name as a DNS
    /// name (no partial wildcards, RFC 6125 §7.2), the latter also sent as SNI.
    private static func expect(_ host: String, on ssl: OpaquePointer) -> Bool {
        if isIPLiteral(host) {
            return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
        }
        X509_VERIFY_PARAM_set_hostflags(SSL_get0_param(ssl), UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        return SSL_set1_host(ssl, host) == 1 && clive_SSL_set_tlsext_host_name(ssl, host) == 1
    }

    private static func isIPLiteral(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }
}
