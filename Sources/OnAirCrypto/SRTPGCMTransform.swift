/// AEAD_AES_128_GCM packet transform for SRTP and SRTCP (RFC 7714), in place on caller memory.
/// Stateless per packet: the index comes from `SRTPContext`.
///
/// SRTP  (§8):  header | GCM(payload) | tag(16), AAD = the RTP header (CSRCs, extension).
/// SRTCP (§9):  header+SSRC | GCM(rest) | tag(16) | E|index, AAD = header+SSRC | E|index.
///              With E = 0 (§9.3, received only) the whole packet is AAD and nothing is encrypted.
final class SRTPGCMTransform {
    static let tagLength = AESGCM.tagLength

    private let rtpCipher: AESGCM
    private let rtcpCipher: AESGCM
    /// The 96-bit session salt as an integer.
    private let rtpSalt: UInt128
    private let rtcpSalt: UInt128

    init(rtp: SRTPSessionKeys, rtcp: SRTPSessionKeys) throws(SRTPError) {
        rtpCipher = try AESGCM(key: rtp.cipherKey)
        rtcpCipher = try AESGCM(key: rtcp.cipherKey)
        rtpSalt = rtp.salt.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
        rtcpSalt = rtcp.salt.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
    }

    /// §8.1: IV = (0x0000 || SSRC || ROC || SEQ) XOR salt, i.e. (SSRC * 2^48 + index) XOR salt.
    static func rtpIV(salt: UInt128, ssrc: UInt32, index: UInt64) -> UInt128 {
        salt ^ UInt128(ssrc) << 48 ^ UInt128(index)
    }

    /// §9.1: IV = (0x0000 || SSRC || 0x0000 || 0 || SRTCP index) XOR salt.
    static func rtcpIV(salt: UInt128, ssrc: UInt32, index: UInt32) -> UInt128 {
        salt ^ UInt128(ssrc) << 48 ^ UInt128(index & 0x7FFF_FFFF)
    }

    /// Runs `body` with a pointer to the 12-byte big-endian IV held in the low 96 bits of `iv`.
    private func withIV<R>(_ iv: UInt128, _ body: (UnsafeRawPointer) throws(SRTPError) -> R) throws(SRTPError) -> R {
        var bigEndian = iv.bigEndian
        return try withUnsafeBytes(of: &bigEndian) { bytes throws(SRTPError) in try body(bytes.baseAddress! + 4) }
    }

    func protectRTP(_ packet: UnsafeMutableRawPointer, headerLength: Int, length: Int,
                    ssrc: UInt32, index: UInt64) throws(SRTPError) -> Int {
        try withIV(Self.rtpIV(salt: rtpSalt, ssrc: ssrc, index: index)) { iv throws(SRTPError) in
            try rtpCipher.seal(iv: iv, aad: UnsafeRawBufferPointer(start: packet, count: headerLength),
                               aadTail: UnsafeRawBufferPointer(start: nil, count: 0),
                               text: packet + headerLength, count: length - headerLength, tag: packet + length)
        }
        return length + Self.tagLength
    }

    func unprotectRTP(_ packet: UnsafeMutableRawPointer, headerLength: Int, length: Int,
                      ssrc: UInt32, index: UInt64) throws(SRTPError) -> Int {
        let body = length - Self.tagLength
        try withIV(Self.rtpIV(salt: rtpSalt, ssrc: ssrc, index: index)) { iv throws(SRTPError) in
            try rtpCipher.open(iv: iv, aad: UnsafeRawBufferPointer(start: packet, count: headerLength),
                               aadTail: UnsafeRawBufferPointer(start: nil, count: 0),
                               text: packet + headerLength, count: body - headerLength, tag: packet + body)
        }
        return body
    }

    func protectRTCP(_ packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32,
                     index: UInt32) throws(SRTPError) -> Int {
        let word = packet + length + Self.tagLength
        word.storeBytes(of: (0x8000_0000 | index).bigEndian, as: UInt32.self)
        try withIV(Self.rtcpIV(salt: rtcpSalt, ssrc: ssrc, index: index)) { iv throws(SRTPError) in
            try rtcpCipher.seal(iv: iv, aad: UnsafeRawBufferPointer(start: packet, count: 8),
                                aadTail: UnsafeRawBufferPointer(start: word, count: 4),
                                text: packet + 8, count: length - 8, tag: packet + length)
        }
        return length + Self.tagLength + 4
    }

    /// Offset of the E|index word in an SRTCP packet of `length` bytes: the last four.
    static func rtcpIndexOffset(length: Int) -> Int { length - 4 }

    func unprotectRTCP(_ packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32,
                       index: UInt32, encrypted: Bool) throws(SRTPError) -> Int {
        let word = UnsafeRawPointer(packet + length - 4)
        let tagOffset = length - 4 - Self.tagLength
        // E = 1: AAD is the first 8 bytes; E = 0: the whole RTCP packet is AAD (§9.3).
        let aadLength = encrypted ? 8 : tagOffset
        try withIV(Self.rtcpIV(salt: rtcpSalt, ssrc: ssrc, index: index)) { iv throws(SRTPError) in
            try rtcpCipher.open(iv: iv, aad: UnsafeRawBufferPointer(start: packet, count: aadLength),
                                aadTail: UnsafeRawBufferPointer(start: word, count: 4),
                                text: packet + aadLength, count: tagOffset - aadLength, tag: packet + tagOffset)
        }
        return tagOffset
    }
}
