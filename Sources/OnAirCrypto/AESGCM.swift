import CLiveOpenSSL

/// AES-GCM with a 96-bit IV and a 16-byte tag, as SRTP's AEAD_AES_128_GCM uses it (RFC 7714 §5).
///
/// Holds one sealing and one opening `EVP_CIPHER_CTX`, keyed once; per packet only the IV is
/// set (no allocation on OpenSSL 3.0, measured). The associated data may come in two pieces
/// because SRTCP authenticates the header plus the E-flag/index word that sits after the tag
/// (RFC 7714 §9.2).
final class AESGCM {
    static let tagLength = 16
    static let ivLength = 12

    private let sealer: OpaquePointer
    private let opener: OpaquePointer

    /// - Parameter key: 16 or 32 bytes.
    init(key: [UInt8]) throws(SRTPError) {
        let name: String
        switch key.count {
        case 16: name = "AES-128-GCM"
        case 32: name = "AES-256-GCM"
        default: throw .invalidKeyLength(expected: 16, got: key.count)
        }
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
            throw .cryptoFailure(.drain("EVP_CIPHER_fetch(\(name))"))
        }
        defer { EVP_CIPHER_free(cipher) }
        guard let sealer = EVP_CIPHER_CTX_new() else { throw .cryptoFailure(.drain("EVP_CIPHER_CTX_new")) }
        guard let opener = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(sealer)
            throw .cryptoFailure(.drain("EVP_CIPHER_CTX_new"))
        }
        // The default GCM IV length is 12 bytes, which is what RFC 7714 §8.1/§9.1 build.
        let ok = key.withUnsafeBufferPointer { k in
            EVP_EncryptInit_ex(sealer, cipher, nil, k.baseAddress, nil) == 1
                && EVP_DecryptInit_ex(opener, cipher, nil, k.baseAddress, nil) == 1
        }
        guard ok else {
            EVP_CIPHER_CTX_free(sealer)
            EVP_CIPHER_CTX_free(opener)
            throw .cryptoFailure(.drain("EVP_*Init_ex(\(name))"))
        }
        self.sealer = sealer
        self.opener = opener
    }

    deinit {
        EVP_CIPHER_CTX_free(sealer)
        EVP_CIPHER_CTX_free(opener)
    }

    /// Encrypts `text` in place and writes the tag over `aad || aadTail || ciphertext` to `tag`.
    func seal(iv: UnsafeRawPointer, aad: UnsafeRawBufferPointer, aadTail: UnsafeRawBufferPointer,
              text: UnsafeMutableRawPointer, count: Int, tag: UnsafeMutableRawPointer) throws(SRTPError) {
        guard EVP_EncryptInit_ex(sealer, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self)) == 1 else {
            throw .cryptoFailure(.drain("EVP_EncryptInit_ex(gcm iv)"))
        }
        var produced: Int32 = 0
        // Two calls instead of a loop over [aad, aadTail]: an array literal could allocate.
        try absorb(aad, sealing: true)
        try absorb(aadTail, sealing: true)
        let bytes = text.assumingMemoryBound(to: UInt8.self)
        if count > 0 {
            guard EVP_EncryptUpdate(sealer, bytes, &produced, bytes, Int32(count)) == 1 else {
                throw .cryptoFailure(.drain("EVP_EncryptUpdate(gcm)"))
            }
        }
        // GCM is a stream mode: Final emits no bytes, so pointing it at the text end is safe.
        guard EVP_EncryptFinal_ex(sealer, bytes + count, &produced) == 1,
              EVP_CIPHER_CTX_ctrl(sealer, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagLength), tag) == 1 else {
            throw .cryptoFailure(.drain("EVP_EncryptFinal_ex(gcm)"))
        }
    }

    /// Verifies `tag` over `aad || aadTail || text` and decrypts `text` in place.
    /// Throws `authenticationFailed` on a bad tag; the text is then garbage and must be dropped.
    func open(iv: UnsafeRawPointer, aad: UnsafeRawBufferPointer, aadTail: UnsafeRawBufferPointer,
              text: UnsafeMutableRawPointer, count: Int, tag: UnsafeRawPointer) throws(SRTPError) {
        guard EVP_DecryptInit_ex(opener, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self)) == 1 else {
            throw .cryptoFailure(.drain("EVP_DecryptInit_ex(gcm iv)"))
        }
        var produced: Int32 = 0
        // Two calls instead of a loop over [aad, aadTail]: an array literal could allocate.
        try absorb(aad, sealing: false)
        try absorb(aadTail, sealing: false)
        let bytes = text.assumingMemoryBound(to: UInt8.self)
        if count > 0 {
            guard EVP_DecryptUpdate(opener, bytes, &produced, bytes, Int32(count)) == 1 else {
                throw .cryptoFailure(.drain("EVP_DecryptUpdate(gcm)"))
            }
        }
        // SET_TAG copies the 16 bytes into the context; it never writes through the pointer.
        guard EVP_CIPHER_CTX_ctrl(opener, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagLength),
                                  UnsafeMutableRawPointer(mutating: tag)) == 1 else {
            throw .cryptoFailure(.drain("EVP_CIPHER_CTX_ctrl(SET_TAG)"))
        }
        guard EVP_DecryptFinal_ex(opener, bytes + count, &produced) == 1 else {
            ERR_clear_error()  // a bad tag is the peer's problem, not an OpenSSL error to report later
            throw .authenticationFailed
        }
    }

    /// Feeds associated data (a nil output pointer tells OpenSSL it is AAD).
    private func absorb(_ piece: UnsafeRawBufferPointer, sealing: Bool) throws(SRTPError) {
        guard let base = piece.baseAddress, piece.count > 0 else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var produced: Int32 = 0
        let ok = sealing
            ? EVP_EncryptUpdate(sealer, nil, &produced, bytes, Int32(piece.count))
            : EVP_DecryptUpdate(opener, nil, &produced, bytes, Int32(piece.count))
        guard ok == 1 else { throw .cryptoFailure(.drain("EVP_*Update(gcm aad)")) }
    }
}
