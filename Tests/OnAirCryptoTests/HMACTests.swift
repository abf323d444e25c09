import Testing
@testable import OnAirCrypto

@Suite("HMAC and digests")
struct HMACTests {
    /// RFC 2202 §3 test cases 1, 2, 3 and 6 (HMAC-SHA-1).
    @Test func rfc2202HMACSHA1() {
        #expect(HMAC.sha1(key: [UInt8](repeating: 0x0b, count: 20), data: ascii("Hi There"))
            == hex("b617318655057264e28bc0b6fb378c8ef146be00"))
        #expect(HMAC.sha1(key: ascii("Jefe"), data: ascii("what do ya want for nothing?"))
            == hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
        #expect(HMAC.sha1(key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50))
            == hex("125d7342b9ac11cd91a39af48aa17b4f63f175d3"))
        #expect(HMAC.sha1(key: [UInt8](repeating: 0xaa, count: 80),
                          data: ascii("Test Using Larger Than Block-Size Key - Hash Key First"))
            == hex("aa4ae5e15272d00e95705637ce8a3b55ed402112"))
    }

    /// RFC 4231 §4.2, §4.3 and §4.7 (HMAC-SHA-256).
    @Test func rfc4231HMACSHA256() {
        #expect(HMAC.sha256(key: [UInt8](repeating: 0x0b, count: 20), data: ascii("Hi There"))
            == hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
        #expect(HMAC.sha256(key: ascii("Jefe"), data: ascii("what do ya want for nothing?"))
            == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        #expect(HMAC.sha256(key: [UInt8](repeating: 0xaa, count: 131),
                            data: ascii("Test Using Larger Than Block-Size Key - Hash Key First"))
            == hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"))
    }

    @Test func emptyKeyAndDataDoNotCrash() {
        #expect(HMAC.sha1(key: [], data: []).count == 20)
        #expect(HMAC.sha256(key: [], data: []).count == 32)
    }

    /// FIPS 180-2 Appendix examples: the one-block message "abc".
    @Test func fipsDigestsOfABC() {
        #expect(Digest.sha1(ascii("abc")) == hex("a9993e364706816aba3e25717850c26c9cd0d89d"))
        #expect(Digest.sha256(ascii("abc"))
            == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(Digest.sha384(ascii("abc")) == hex("""
            cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163
            1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7
            """))
        #expect(Digest.sha512(ascii("abc")) == hex("""
            ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a
            2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f
            """))
    }

    /// RFC 1321 §A.5 test suite (MD5 is only the STUN long-term key, RFC 8489 §9.2.2).
    @Test func rfc1321MD5() {
        #expect(Digest.md5([]) == hex("d41d8cd98f00b204e9800998ecf8427e"))
        #expect(Digest.md5(ascii("abc")) == hex("900150983cd24fb0d6963f7d28e17f72"))
        #expect(Digest.md5(ascii("message digest")) == hex("f96b697d7cb7938d525a2f31aaf161d0"))
    }

    @Test func secureRandomGivesRequestedLengthsAndVaries() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(33).count == 33)
        // 128 random bits colliding is a 2^-128 event: a failure means the DRBG is broken.
        #expect(SecureRandom.bytes(16) != SecureRandom.bytes(16))
        #expect(SecureRandom.uint64() != SecureRandom.uint64())
        _ = SecureRandom.uint32()
    }

    @Test func openSSLErrorDrainsTheQueue() {
        let empty = OpenSSLError.drain("nothing")
        #expect(empty.queue.isEmpty)
        #expect(empty.description == "nothing failed")
    }
}
