/// The session keys of one packet kind (SRTP or SRTCP) in one direction (RFC 3711 §4.3).
struct SRTPSessionKeys: Sendable {
    /// k_e: the AES key (16 bytes for both our profiles).
    var cipherKey: [UInt8]
    /// k_s: 14 bytes for AES-CM (RFC 3711 §4.1.1), 12 for AES-GCM (RFC 7714 §8.1).
    var salt: [UInt8]
    /// k_a: the 20-byte HMAC-SHA1 key; empty for the AEAD profile.
    var authKey: [UInt8]

    /// Derives SRTP (`rtcp == false`) or SRTCP session keys from the master key and salt.
    static func derive(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8],
                       rtcp: Bool) throws(SRTPError) -> SRTPSessionKeys {
        guard masterKey.count == profile.keyLength else {
            throw .invalidKeyLength(expected: profile.keyLength, got: masterKey.count)
        }
        guard masterSalt.count == profile.saltLength else {
            throw .invalidSaltLength(expected: profile.saltLength, got: masterSalt.count)
        }
        let labels: (SRTPKeyDerivation.Label, SRTPKeyDerivation.Label, SRTPKeyDerivation.Label) = rtcp
            ? (.rtcpEncryption, .rtcpAuthentication, .rtcpSalt)
            : (.rtpEncryption, .rtpAuthentication, .rtpSalt)
        let cipherKey = try SRTPKeyDerivation.derive(masterKey: masterKey, masterSalt: masterSalt,
                                                     label: labels.0, length: profile.keyLength)
        let salt = try SRTPKeyDerivation.derive(masterKey: masterKey, masterSalt: masterSalt,
                                                label: labels.2, length: profile.saltLength)
        var authKey: [UInt8] = []
        if profile == .aes128CmHmacSha1_80 {
            authKey = try SRTPKeyDerivation.derive(masterKey: masterKey, masterSalt: masterSalt,
                                                   label: labels.1, length: SRTPAuthenticator.digestLength)
        }
        return SRTPSessionKeys(cipherKey: cipherKey, salt: salt, authKey: authKey)
    }
}
