/// An SRTP protection profile negotiated through DTLS-SRTP (RFC 5764 §4.1.2).
public enum SRTPProfile: String, Sendable, CaseIterable {
    /// RFC 3711 AES-128 counter mode with an 80-bit HMAC-SHA1 tag (RFC 5764 0x0001).
    case aes128CmHmacSha1_80 = "SRTP_AES128_CM_SHA1_80"
    /// RFC 7714 AEAD AES-128-GCM with a 16-byte tag (RFC 7714 §14.2, 0x0007).
    case aeadAes128Gcm = "SRTP_AEAD_AES_128_GCM"

    /// The profile's name as OpenSSL's `SSL_CTX_set_tlsext_use_srtp` and
    /// `SSL_get_selected_srtp_profile` spell it.
    public var openSSLName: String { rawValue }

    /// The two-byte identifier from the IANA "DTLS-SRTP Protection Profiles" registry.
    public var identifier: UInt16 {
        switch self {
        case .aes128CmHmacSha1_80: return 0x0001
        case .aeadAes128Gcm: return 0x0007
        }
    }

    /// Master key length in bytes.
    public var keyLength: Int { 16 }

    /// Master salt length in bytes (RFC 3711 §8.2: 112 bits; RFC 7714 §12: 96 bits).
    public var saltLength: Int {
        switch self {
        case .aes128CmHmacSha1_80: return 14
        case .aeadAes128Gcm: return 12
        }
    }

    /// Bytes the protected packet grows by: the RTP auth tag (10) or the GCM tag (16).
    public var rtpOverhead: Int {
        switch self {
        case .aes128CmHmacSha1_80: return 10
        case .aeadAes128Gcm: return 16
        }
    }

    /// Bytes an SRTCP packet grows by: tag plus the 4-byte E-flag/index word (RFC 3711 §3.4).
    public var rtcpOverhead: Int { rtpOverhead + 4 }
}
