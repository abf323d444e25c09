import CLiveOpenSSL
import OnAirCrypto
import OnAirWire

/// A self-signed certificate and its private key for DTLS (RFC 8827 §6.5: WebRTC peers
/// authenticate by certificate fingerprint, so nothing needs a CA).
///
/// `@unchecked Sendable`: the `X509` and `EVP_PKEY` are never mutated after `init`, and
/// OpenSSL's reference counting (`SSL_CTX_use_certificate` up-refs them) is thread-safe, so one
/// certificate can back endpoints on every event loop.
public final class DTLSCertificate: @unchecked Sendable {
    /// `X509 *`, owned.
    let x509: OpaquePointer
    /// `EVP_PKEY *`, owned.
    let privateKey: OpaquePointer
    /// SHA-256 of the DER certificate, computed once (RFC 8122 §5).
    public let fingerprintSHA256: [UInt8]

    /// Takes ownership of both pointers.
    private init(x509: OpaquePointer, privateKey: OpaquePointer) throws {
        self.x509 = x509
        self.privateKey = privateKey
        guard let digest = PeerFingerprint.digest(of: x509, algorithm: "sha-256") else {
            X509_free(x509)
            EVP_PKEY_free(privateKey)
            throw OpenSSLError.drain("X509_digest(sha256)")
        }
        self.fingerprintSHA256 = digest
    }

    deinit {
        X509_free(x509)
        EVP_PKEY_free(privateKey)
    }

    /// The value for `a=fingerprint:` in SDP: `sha-256 AB:CD:…` (RFC 8122 §5, upper-case hex).
    public var sdpFingerprint: String { fingerprint.sdpValue }

    /// Our own fingerprint as a peer would expect it.
    public var fingerprint: PeerFingerprint {
        // Cannot throw: the name is supported and the digest is 32 bytes.
        try! PeerFingerprint(algorithm: "sha-256", bytes: fingerprintSHA256)
    }

    /// A fresh ECDSA P-256 key and a certificate for it: what browsers and aiortc use, and the
    /// key type every WebRTC stack accepts (RFC 8827 §6.5 requires ECDSA P-256 support).
    public static func generateECDSA(commonName: String = "OnAir", validity: Duration = .seconds(30 * 86_400)) throws -> DTLSCertificate {
        guard let key = clive_EVP_EC_gen("P-256") else { throw OpenSSLError.drain("EVP_EC_gen(P-256)") }
        return try selfSign(key: key, commonName: commonName, validity: validity)
    }

    /// A fresh RSA key and certificate. WebRTC stacks such as GStreamer's webrtcbin present RSA
    /// certificates; we generate them to prove we interoperate with ECDHE-RSA peers.
    public static func generateRSA(bits: Int = 2048, commonName: String = "OnAir", validity: Duration = .seconds(30 * 86_400)) throws -> DTLSCertificate {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw OpenSSLError.drain("EVP_PKEY_CTX_new_from_name(RSA)") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(ctx) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else {
            throw OpenSSLError.drain("EVP_PKEY_generate(RSA \(bits))")
        }
        return try selfSign(key: key, commonName: commonName, validity: validity)
    }

    /// Loads a certificate and its private key from PEM text (e.g. a certificate kept across
    /// restarts so that fingerprints in cached SDP stay valid).
    public convenience init(certificatePEM: String, privateKeyPEM: String) throws {
        guard let x509 = Self.withMemoryBIO(certificatePEM, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw OpenSSLError.drain("PEM_read_bio_X509")
        }
        guard let key = Self.withMemoryBIO(privateKeyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            X509_free(x509)
            throw OpenSSLError.drain("PEM_read_bio_PrivateKey")
        }
        guard X509_check_private_key(x509, key) == 1 else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw OpenSSLError.drain("X509_check_private_key")
        }
        try self.init(x509: x509, privateKey: key)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`), for debugging and tests.
    public var certificatePEM: String { Self.pem { PEM_write_bio_X509($0, x509) } }

    /// The private key as unencrypted PKCS#8 PEM. Secret: for tests and local storage only.
    public var privateKeyPEM: String { Self.pem { PEM_write_bio_PrivateKey($0, privateKey, nil, nil, 0, nil, nil) } }

    // MARK: - Building

    /// Wraps `key` (taking ownership) in a v3 certificate signed by itself with SHA-256.
    private static func selfSign(key: OpaquePointer, commonName: String, validity: Duration) throws -> DTLSCertificate {
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw OpenSSLError.drain("X509_new")
        }
        do {
            try fill(x509, key: key, commonName: commonName, validity: validity)
        } catch {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw error
        }
        return try DTLSCertificate(x509: x509, privateKey: key)
    }

    private static func fill(_ x509: OpaquePointer, key: OpaquePointer, commonName: String, validity: Duration) throws {
        // RFC 5280 §4.1.2.2: a positive serial of at most 20 octets, unique per issuer; a random
        // 63-bit value keeps two certificates with the same name apart.
        let serial = (SecureRandom.uint64() & 0x7FFF_FFFF_FFFF_FFFF) | 1
        // Start a day back so a peer whose clock lags still accepts the certificate.
        let lifetime = max(validity.components.seconds, 1)
        guard X509_set_version(x509, 2) == 1, // v3
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1,
              X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), Int(lifetime)) != nil else {
            throw OpenSSLError.drain("X509 serial/validity")
        }
        guard let name = X509_get_subject_name(x509),
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(x509, name) == 1 else {
            throw OpenSSLError.drain("X509 subject \"\(commonName)\"")
        }
        guard X509_set_pubkey(x509, key) == 1 else { throw OpenSSLError.drain("X509_set_pubkey") }
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw OpenSSLError.drain("X509_sign(sha256)") }
    }

    // MARK: - PEM helpers

    private static func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer) -> T?) -> T? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw -> T? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return "" }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = clive_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
