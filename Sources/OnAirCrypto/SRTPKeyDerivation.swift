/// SRTP key derivation (RFC 3711 §4.3) with the AES-CM PRF (§4.3.3) and a key derivation
/// rate of 0, which is what DTLS-SRTP uses (RFC 5764 §4.1.2).
///
/// Generic over the AES key length: AES-128 (RFC 3711 App. B.3), AES-192 and AES-256
/// (RFC 6188 §7). The AEAD profiles reuse it with their 96-bit salt (RFC 7714 §11).
public enum SRTPKeyDerivation {
    /// The key derivation labels (RFC 3711 §4.3.1 and §4.3.2).
    public enum Label: UInt8, Sendable {
        case rtpEncryption = 0x00
        case rtpAuthentication = 0x01
        case rtpSalt = 0x02
        case rtcpEncryption = 0x03
        case rtcpAuthentication = 0x04
        case rtcpSalt = 0x05
    }

    /// The salt is at most 112 bits; a shorter (96-bit AEAD) salt is padded with zero bits
    /// on the right, as libsrtp and RFC 7714 §11 do.
    public static let maximumSaltLength = 14

    /// Derives `length` bytes of session key material for `label`.
    ///
    /// With kdr = 0, r = 0, so key_id = label || 0^48 and x = key_id XOR master_salt: the
    /// label lands in byte 7 of the 14-byte salt. The PRF output is the AES-CM keystream
    /// under the master key starting at the counter block x * 2^16.
    public static func derive(masterKey: [UInt8], masterSalt: [UInt8], label: Label,
                              length: Int) throws(SRTPError) -> [UInt8] {
        guard masterSalt.count <= maximumSaltLength else {
            throw .invalidSaltLength(expected: maximumSaltLength, got: masterSalt.count)
        }
        var counter = masterSalt + [UInt8](repeating: 0, count: maximumSaltLength - masterSalt.count)
        counter[7] ^= label.rawValue
        counter += [0, 0]
        return try AESCounterMode(key: masterKey).keystream(iv: counter, count: length)
    }
}
