import CLiveOpenSSL

/// HMAC-SHA1 (RFC 2104) keyed once, for the SRTP and SRTCP authentication tag
/// (RFC 3711 §4.2.1, truncated to 80 bits by AES_CM_128_HMAC_SHA1_80).
///
/// Keeps the SHA-1 state after absorbing key⊕ipad and key⊕opad. `SHA_CTX` is a plain C
/// struct, so each tag copies those two states onto the stack and never allocates.
/// (OpenSSL 3.0's `EVP_MAC_init` re-keying duplicates provider contexts: two mallocs per tag.)
struct SRTPAuthenticator {
    static let digestLength = 20
    private static let blockLength = 64

    private var inner = SHA_CTX()
    private var outer = SHA_CTX()

    init(key: [UInt8]) {
        var block = key.count > Self.blockLength ? Digest.sha1(key) : key
        block += [UInt8](repeating: 0, count: Self.blockLength - block.count)
        let innerPad = block.map { $0 ^ 0x36 }
        let outerPad = block.map { $0 ^ 0x5c }
        _ = clive_SHA1_Init(&inner)
        _ = clive_SHA1_Update(&inner, innerPad, innerPad.count)
        _ = clive_SHA1_Init(&outer)
        _ = clive_SHA1_Update(&outer, outerPad, outerPad.count)
    }

    /// Writes the first `count` (≤ 20) bytes of HMAC(key, message || rollover) to `output`;
    /// `rollover` is SRTP's ROC appended big-endian (RFC 3711 §4.2), nil for SRTCP.
    func tag(message: UnsafeRawPointer, length: Int, rollover: UInt32?,
             into output: UnsafeMutableRawPointer, count: Int) {
        var digest: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of stack for the 20-byte digest
        withUnsafeMutableBytes(of: &digest) { scratch in
            let md = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var state = inner
            _ = clive_SHA1_Update(&state, message, length)
            if let rollover {
                var bigEndian = rollover.bigEndian
                _ = withUnsafeBytes(of: &bigEndian) { clive_SHA1_Update(&state, $0.baseAddress, 4) }
            }
            _ = clive_SHA1_Final(md, &state)
            var outerState = outer
            _ = clive_SHA1_Update(&outerState, md, Self.digestLength)
            _ = clive_SHA1_Final(md, &outerState)
            output.copyMemory(from: md, byteCount: min(count, Self.digestLength))
        }
    }

    /// Recomputes the tag and compares it with the `count` bytes at `received` in constant time
    /// (a timing difference would let a forger learn the tag byte by byte).
    func verify(message: UnsafeRawPointer, length: Int, rollover: UInt32?,
                received: UnsafeRawPointer, count: Int) -> Bool {
        var expected: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &expected) { scratch in
            tag(message: message, length: length, rollover: rollover, into: scratch.baseAddress!, count: count)
            var difference: UInt8 = 0
            for i in 0..<count { difference |= scratch[i] ^ received.load(fromByteOffset: i, as: UInt8.self) }
            return difference == 0
        }
    }
}
