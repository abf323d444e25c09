import Testing
@testable import OnAirCrypto

@Suite("SRTP key derivation and AES-CM (RFC 3711 App. B, RFC 6188 §7)")
struct SRTPKeyDerivationTests {
    /// RFC 3711 Appendix B.2: AES-CM keystream, session key 2B7E...3C, IV = salt * 2^16.
    @Test func rfc3711B2KeystreamSegments() throws {
        let cipher = try AESCounterMode(key: hex("2B7E151628AED2A6ABF7158809CF4F3C"))
        let stream = try cipher.keystream(iv: hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"), count: 16 * 0xFF02)
        #expect(Array(stream[0..<48]) == hex("""
            E03EAD0935C95E80E166B16DD92B4EB4
            D23513162B02D0F72A43A2FE4A5F97AB
            41E95B3BB0A2E8DD477901E4FCA894C0
            """))
        // Counter blocks ...FEFF, ...FF00 and ...FF01.
        #expect(Array(stream[(16 * 0xFEFF)...]) == hex("""
            EC8CDF7398607CB0F2D21675EA9EA1E4
            362B7C3C6773516318A077D7FC5073AE
            6A2CC3787889374FBEB4C81B17BA6C44
            """))
    }

    /// RFC 3711 Appendix B.3 (labels 0, 2 and 1; the authentication key printed in full).
    @Test func rfc3711B3KeyDerivation() throws {
        let key = hex("E1F97A0D3E018BE0D64FA32C06DE4139")
        let salt = hex("0EC675AD498AFEEBB6960B3AABE6")
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpEncryption, length: 16)
            == hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpSalt, length: 14)
            == hex("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpAuthentication, length: 94)
            == hex("""
            CEBE321F6FF7716B6FD4AB49AF256A15
            6D38BAA48F0A0ACF3C34E2359E6CDBCE
            E049646C43D9327AD175578EF7227098
            6371C10C9A369AC2F94A8C5FBCDDDC25
            6D6E919A48B610EF17C2041E47403576
            6B68642C59BBFC2F34DB60DBDFB2
            """))
        let keys = try SRTPSessionKeys.derive(profile: .aes128CmHmacSha1_80, masterKey: key, masterSalt: salt, rtcp: false)
        #expect(keys.cipherKey == hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(keys.salt == hex("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(keys.authKey == hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"))
    }

    /// RFC 6188 §7.2: AES_256_CM_PRF.
    @Test func rfc6188AES256KeyDerivation() throws {
        let key = hex("f0f04914b513f2763a1b1fa130f10e29 98f6f6e43e4309d1e622a0e332b9f1b6")
        let salt = hex("3b04803de51ee7c96423ab5b78d2")
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpEncryption, length: 32)
            == hex("5ba1064e30ec51613cad926c5a28ef73 1ec7fb397f70a960653caf06554cd8c4"))
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpSalt, length: 14)
            == hex("fa31791685ca444a9e07c6c64e93"))
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpAuthentication, length: 20)
            == hex("fd9c32d39ed5fbb5a9dc96b30818454d1313dc05"))
    }

    /// RFC 6188 §7.4: AES_192_CM_PRF.
    @Test func rfc6188AES192KeyDerivation() throws {
        let key = hex("73edc66c4fa15776fb57f9505c17136550ffda71f3e8e5f1")
        let salt = hex("c8522f3acd4ce86d5add78edbb11")
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpEncryption, length: 24)
            == hex("31874736a8f1143870c26e4857d8a5b2c4a354407faadabb"))
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpSalt, length: 14)
            == hex("2372b82d639b6d8503a47adc0a6c"))
        #expect(try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt, label: .rtpAuthentication, length: 20)
            == hex("355b10973cd95b9eacf4061c7e1a7151e7cfbfcb"))
    }

    @Test func rtcpLabelsGiveDifferentKeys() throws {
        let key = hex("E1F97A0D3E018BE0D64FA32C06DE4139")
        let salt = hex("0EC675AD498AFEEBB6960B3AABE6")
        let rtp = try SRTPSessionKeys.derive(profile: .aes128CmHmacSha1_80, masterKey: key, masterSalt: salt, rtcp: false)
        let rtcp = try SRTPSessionKeys.derive(profile: .aes128CmHmacSha1_80, masterKey: key, masterSalt: salt, rtcp: true)
        #expect(rtcp.cipherKey != rtp.cipherKey && rtcp.salt != rtp.salt && rtcp.authKey != rtp.authKey)
        #expect(rtcp.cipherKey == (try SRTPKeyDerivation.derive(masterKey: key, masterSalt: salt,
                                                                label: .rtcpEncryption, length: 16)))
    }

    @Test func gcmProfileDerivesA96BitSaltAndNoAuthKey() throws {
        let keys = try SRTPSessionKeys.derive(profile: .aeadAes128Gcm, masterKey: [UInt8](repeating: 1, count: 16),
                                              masterSalt: [UInt8](repeating: 2, count: 12), rtcp: false)
        #expect(keys.cipherKey.count == 16 && keys.salt.count == 12 && keys.authKey.isEmpty)
    }

    @Test func rejectsWrongKeyAndSaltLengths() {
        #expect(throws: SRTPError.invalidKeyLength(expected: 16, got: 15)) {
            try SRTPContext(profile: .aes128CmHmacSha1_80, masterKey: [UInt8](repeating: 0, count: 15),
                            masterSalt: [UInt8](repeating: 0, count: 14))
        }
        #expect(throws: SRTPError.invalidSaltLength(expected: 12, got: 14)) {
            try SRTPContext(profile: .aeadAes128Gcm, masterKey: [UInt8](repeating: 0, count: 16),
                            masterSalt: [UInt8](repeating: 0, count: 14))
        }
        #expect(throws: SRTPError.invalidKeyLength(expected: 16, got: 20)) {
            try SRTPKeyDerivation.derive(masterKey: [UInt8](repeating: 0, count: 20), masterSalt: [],
                                         label: .rtpSalt, length: 14)
        }
        #expect(throws: SRTPError.invalidSaltLength(expected: 14, got: 15)) {
            try SRTPKeyDerivation.derive(masterKey: [UInt8](repeating: 0, count: 16),
                                         masterSalt: [UInt8](repeating: 0, count: 15), label: .rtpSalt, length: 14)
        }
    }
}
