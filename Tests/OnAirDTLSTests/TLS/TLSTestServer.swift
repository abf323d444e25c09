import CLiveOpenSSL
import OnAirCrypto

/// OpenSSL as a TLS server in-process, through memory BIOs: the other end of a
/// ``TLSClientStream`` in tests, bytes shuttled by hand.
final class TLSTestServer {
    private let ssl: OpaquePointer
    private let inbound: OpaquePointer
    private let outbound: OpaquePointer
    private(set) var established = false
    private(set) var failure: String?
    /// Plaintext the client sent, in order.
    private(set) var received: [UInt8] = []

    /// - Parameter maximumVersion: e.g. `TLS1_1_VERSION` for a server too old for the client.
    init(certificate: String, key: String, maximumVersion: Int32? = nil) throws {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw OpenSSLError.drain("SSL_CTX_new") }
        defer { SSL_CTX_free(ctx) }
        guard SSL_CTX_use_certificate_chain_file(ctx, certificate) == 1,
              SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else { throw OpenSSLError.drain("load cert/key") }
        if let maximumVersion {
            _ = clive_SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION)
            _ = clive_SSL_CTX_set_max_proto_version(ctx, maximumVersion)
            _ = SSL_CTX_set_cipher_list(ctx, "DEFAULT:@SECLEVEL=0")
        }
        guard let ssl = SSL_new(ctx), let inbound = BIO_new(BIO_s_mem()), let outbound = BIO_new(BIO_s_mem()) else {
            throw OpenSSLError.drain("SSL_new")
        }
        _ = clive_BIO_set_mem_eof_return(inbound, -1)
        SSL_set_bio(ssl, inbound, outbound)
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
    }

    deinit { SSL_free(ssl) }

    /// The SNI the client sent (RFC 6066 §3), if any.
    var serverName: String? {
        SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    }

    func receive(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { BIO_write(inbound, $0.baseAddress, Int32($0.count)) }
        if !established {
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                established = true
            } else if ![SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE].contains(SSL_get_error(ssl, result)) {
                failure = OpenSSLError.drain("server handshake").description
                return
            }
        }
        guard established else { return }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { break }
            received += buffer.prefix(Int(count))
        }
    }

    func write(_ plaintext: [UInt8]) {
        _ = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    /// `SSL_write` alone, as a yardstick for allocation counts.
    func rawWrite(_ plaintext: UnsafeRawBufferPointer) {
        _ = SSL_write(ssl, plaintext.baseAddress, Int32(plaintext.count))
    }

    /// Empties the outbound BIO without copying.
    func discardOutput() {
        _ = clive_BIO_reset(outbound)
    }

    /// What the server has for the client.
    func takeOutput() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { BIO_read(outbound, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return bytes }
            bytes += buffer.prefix(Int(count))
        }
    }
}
