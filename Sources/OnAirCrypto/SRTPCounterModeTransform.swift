/// AES_CM_128_HMAC_SHA1_80 packet transform for SRTP and SRTCP (RFC 3711 §3.3, §3.4, §4.1.1,
/// §4.2.1), working in place on caller memory. Stateless per packet: the index comes from
/// `SRTPContext`, which owns replay and rollover state.
///
/// SRTP:  header | AES-CM(payload) | tag(10) — tag = HMAC-SHA1(header | payload | ROC)[0..<10]
/// SRTCP: header+SSRC | AES-CM(rest) | E|index | tag(10) — tag over everything before it.
final class SRTPCounterModeTransform {
    static let tagLength = 10

    private let rtpCipher: AESCounterMode
    private let rtcpCipher: AESCounterMode
    private let rtpAuthenticator: SRTPAuthenticator
    private let rtcpAuthenticator: SRTPAuthenticator
    /// k_s * 2^16 as a 128-bit integer, ready to XOR into the counter block.
    private let rtpSalt: UInt128
    private let rtcpSalt: UInt128

    init(rtp: SRTPSessionKeys, rtcp: SRTPSessionKeys) throws(SRTPError) {
        rtpCipher = try AESCounterMode(key: rtp.cipherKey)
        rtcpCipher = try AESCounterMode(key: rtcp.cipherKey)
        rtpAuthenticator = SRTPAuthenticator(key: rtp.authKey)
        rtcpAuthenticator = SRTPAuthenticator(key: rtcp.authKey)
        rtpSalt = Self.shiftedSalt(rtp.salt)
        rtcpSalt = Self.shiftedSalt(rtcp.salt)
    }

    private static func shiftedSalt(_ salt: [UInt8]) -> UInt128 {
        salt.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } << UInt128(8 * (16 - salt.count))
    }

    /// RFC 3711 §4.1.1: IV = (k_s * 2^16) XOR (SSRC * 2^64) XOR (i * 2^16).
    static func counterBlock(salt: UInt128, ssrc: UInt32, index: UInt64) -> UInt128 {
        salt ^ UInt128(ssrc) << 64 ^ UInt128(index) << 16
    }

    private func crypt(_ cipher: AESCounterMode, salt: UInt128, ssrc: UInt32, index: UInt64,
                       _ data: UnsafeMutableRawPointer, count: Int) throws(SRTPError) {
        var block = Self.counterBlock(salt: salt, ssrc: ssrc, index: index).bigEndian
        try withUnsafeBytes(of: &block) { iv throws(SRTPError) in
            try cipher.apply(iv: iv.baseAddress!, to: data, count: count)
        }
    }

    /// Encrypts the payload after `headerLength` and appends the tag. Returns the new length.
    func protectRTP(_ packet: UnsafeMutableRawPointer, headerLength: Int, length: Int,
                    ssrc: UInt32, index: UInt64) throws(SRTPError) -> Int {
        try crypt(rtpCipher, salt: rtpSalt, ssrc: ssrc, index: index,
                  packet + headerLength, count: length - headerLength)
        rtpAuthenticator.tag(message: packet, length: length, rollover: UInt32(truncatingIfNeeded: index >> 16),
                             into: packet + length, count: Self.tagLength)
        return length + Self.tagLength
    }

    /// Verifies the tag of an SRTP packet of `length` bytes (tag included), then decrypts.
    /// Returns the RTP length.
    func unprotectRTP(_ packet: UnsafeMutableRawPointer, headerLength: Int, length: Int,
                      ssrc: UInt32, index: UInt64) throws(SRTPError) -> Int {
        let body = length - Self.tagLength
        guard rtpAuthenticator.verify(message: packet, length: body, rollover: UInt32(truncatingIfNeeded: index >> 16),
                                      received: packet + body, count: Self.tagLength) else {
            throw .authenticationFailed
        }
        try crypt(rtpCipher, salt: rtpSalt, ssrc: ssrc, index: UInt64(index),
                  packet + headerLength, count: body - headerLength)
        return body
    }

    /// Encrypts everything after the first 8 bytes, appends E|index and the tag.
    func protectRTCP(_ packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32,
                     index: UInt32) throws(SRTPError) -> Int {
        try crypt(rtcpCipher, salt: rtcpSalt, ssrc: ssrc, index: UInt64(index),
                  packet + 8, count: length - 8)
        (packet + length).storeBytes(of: (0x8000_0000 | index).bigEndian, as: UInt32.self)
        rtcpAuthenticator.tag(message: packet, length: length + 4, rollover: nil,
                              into: packet + length + 4, count: Self.tagLength)
        return length + 4 + Self.tagLength
    }

    /// Offset of the E|index word in an SRTCP packet of `length` bytes.
    static func rtcpIndexOffset(length: Int) -> Int { length - tagLength - 4 }

    /// Verifies an SRTCP packet and decrypts it if the E flag was set. Returns the RTCP length.
    func unprotectRTCP(_ packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32,
                       index: UInt32, encrypted: Bool) throws(SRTPError) -> Int {
        let tagOffset = length - Self.tagLength
        guard rtcpAuthenticator.verify(message: packet, length: tagOffset, rollover: nil,
                                       received: packet + tagOffset, count: Self.tagLength) else {
            throw .authenticationFailed
        }
        let plainLength = Self.rtcpIndexOffset(length: length)
        if encrypted {
            try crypt(rtcpCipher, salt: rtcpSalt, ssrc: ssrc, index: UInt64(index),
                      packet + 8, count: plainLength - 8)
        }
        return plainLength
    }
}
