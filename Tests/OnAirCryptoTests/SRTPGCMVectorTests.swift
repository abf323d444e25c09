import Testing
@testable import OnAirCrypto

/// RFC 7714 §16 and §17: AEAD_AES_128_GCM with the session key and salt given directly.
@Suite("SRTP AEAD_AES_128_GCM vectors (RFC 7714 §16, §17)")
struct SRTPGCMVectorTests {
    static let key = hex("000102030405060708090a0b0c0d0e0f")
    static let salt = hex("517569642070726f2071756f")  // "Quid pro quo"

    /// §16: SSRC 0x5501a0b2, SEQ 0xf17b, ROC 0; payload "Gallia est omnis divisa in partes tres".
    static let rtp = hex("""
        8040f17b 8041f8d3 5501a0b2 47616c6c
        69612065 7374206f 6d6e6973 20646976
        69736120 696e2070 61727465 73207472
        6573
        """)
    /// §16.1.1 SRTP AEAD_AES_128_GCM encryption output.
    static let srtp = hex("""
        8040f17b 8041f8d3 5501a0b2 f24de3a3
        fb34de6c acba861c 9d7e4bca be633bd5
        0d294e6f 42a5f47a 51c7d19b 36de3adf
        8833899d 7f27beb1 6a9152cf 765ee439
        0cce
        """)
    /// §17: the RTCP packet the subsections encrypt (SSRC "Mars"), SRTCP index 0x5d4.
    static let rtcp = hex("""
        81c8000d 4d617273 4e545031 4e545032
        52545020 0000042a 0000e930 4c756e61
        deadbeef deadbeef deadbeef deadbeef
        deadbeef
        """)
    /// §17.1.1 SRTCP AEAD_AES_128_GCM encryption output (E = 1).
    static let srtcp = hex("""
        81c8000d 4d617273 63e94885 dcdab67c
        a727d766 2f6b7e99 7ff5c0f7 6c06f32d
        c676a5f1 730d6fda 4ce09b46 86303ded
        0bb9275b c84aa458 96cf4d2f c5abf872
        45d9eade 800005d4
        """)
    /// §17.3.1 SRTCP AEAD_AES_128_GCM authentication only (E = 0).
    static let srtcpAuthOnly = hex("""
        81c8000d 4d617273 4e545031 4e545032
        52545020 0000042a 0000e930 4c756e61
        deadbeef deadbeef deadbeef deadbeef
        deadbeef 841dd968 3dd78ec9 2ae58790
        125f62b3 000005d4
        """)

    static func context() throws -> SRTPContext {
        let keys = SRTPSessionKeys(cipherKey: key, salt: salt, authKey: [])
        return try SRTPContext(profile: .aeadAes128Gcm, rtpKeys: keys, rtcpKeys: keys)
    }

    /// §8.1 and §9.1 IVs (printed in §16.1 and §17.1).
    @Test func ivConstruction() {
        let saltValue = Self.salt.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
        #expect(SRTPGCMTransform.rtpIV(salt: saltValue, ssrc: 0x5501a0b2, index: 0xf17b)
            == hex("51753c6580c2726f20718414").reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
        #expect(SRTPGCMTransform.rtcpIV(salt: saltValue, ssrc: 0x4d617273, index: 0x5d4)
            == hex("517524055203726f207170bb").reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
    }

    @Test func protectRTPMatchesSection16() throws {
        var packet = Self.rtp
        try Self.context().protectRTP(&packet)
        #expect(packet == Self.srtp)
    }

    @Test func unprotectRTPMatchesSection16() throws {
        var packet = Self.srtp
        try Self.context().unprotectRTP(&packet)
        #expect(packet == Self.rtp)
    }

    @Test func protectRTCPMatchesSection17() throws {
        let context = try Self.context()
        try context.setNextRTCPIndex(0x5d4, for: 0x4d617273)
        var packet = Self.rtcp
        try context.protectRTCP(&packet)
        #expect(packet == Self.srtcp)
    }

    @Test func unprotectRTCPMatchesSection17() throws {
        var packet = Self.srtcp
        try Self.context().unprotectRTCP(&packet)
        #expect(packet == Self.rtcp)
    }

    @Test func unprotectAuthenticationOnlyRTCPMatchesSection17_3() throws {
        var packet = Self.srtcpAuthOnly
        try Self.context().unprotectRTCP(&packet)
        #expect(packet == Self.rtcp)
    }

    @Test func everyFlippedBitOfTheSection16PacketFailsAuthentication() throws {
        let context = try Self.context()
        for byte in 0..<Self.srtp.count {
            var packet = Self.srtp
            packet[byte] ^= 0x01
            #expect(throws: SRTPError.self) { try context.unprotectRTP(&packet) }
        }
        var intact = Self.srtp
        try context.unprotectRTP(&intact)  // and nothing above poisoned the state
        #expect(intact == Self.rtp)
    }
}
