import CLiveOpenSSL

/// AES in counter mode, "AES-CM" (RFC 3711 §4.1.1), with AES-128/192/256 keys (RFC 6188).
///
/// Owns one `EVP_CIPHER_CTX`, keyed once at init. Each call only re-sets the IV on that
/// context, which OpenSSL 3.0 does without allocating (measured with counting
/// `CRYPTO_set_mem_functions`), so the per-packet path stays allocation-free.
final class AESCounterMode {
    private let context: OpaquePointer

    /// - Parameter key: 16, 24 or 32 bytes.
    init(key: [UInt8]) throws(SRTPError) {
        let name: String
        switch key.count {
        case 16: name = "AES-128-CTR"
        case 24: name = "AES-192-CTR"
        case 32: name = "AES-256-CTR"
        default: throw .invalidKeyLength(expected: 16, got: key.count)
        }
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
            throw .cryptoFailure(.drain("EVP_CIPHER_fetch(\(name))"))
        }
        defer { EVP_CIPHER_free(cipher) }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw .cryptoFailure(.drain("EVP_CIPHER_CTX_new"))
        }
        let ok = key.withUnsafeBufferPointer { EVP_EncryptInit_ex(context, cipher, nil, $0.baseAddress, nil) }
        guard ok == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .cryptoFailure(.drain("EVP_EncryptInit_ex(\(name))"))
        }
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// XORs the keystream that starts at counter block `iv` (16 bytes) into `data`, in place.
    /// Encryption and decryption are the same operation.
    func apply(iv: UnsafeRawPointer, to data: UnsafeMutableRawPointer, count: Int) throws(SRTPError) {
        guard count > 0 else { return }
        guard EVP_EncryptInit_ex(context, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self)) == 1 else {
            throw .cryptoFailure(.drain("EVP_EncryptInit_ex(iv)"))
        }
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        var produced: Int32 = 0
        guard EVP_EncryptUpdate(context, bytes, &produced, bytes, Int32(count)) == 1 else {
            throw .cryptoFailure(.drain("EVP_EncryptUpdate(ctr)"))
        }
    }

    /// The keystream itself (encrypting zeros), for key derivation and the RFC 3711 B.2 test.
    func keystream(iv: [UInt8], count: Int) throws(SRTPError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var outcome: Result<Void, SRTPError> = .success(())
        iv.withUnsafeBytes { ivBytes in
            out.withUnsafeMutableBytes { outBytes in
                guard let base = outBytes.baseAddress, let ivBase = ivBytes.baseAddress else { return }
                do throws(SRTPError) { try apply(iv: ivBase, to: base, count: count) } catch { outcome = .failure(error) }
            }
        }
        try outcome.get()
        return out
    }
}
