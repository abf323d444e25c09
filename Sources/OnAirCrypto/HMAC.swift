import CLiveOpenSSL

/// One-shot HMAC (RFC 2104) through OpenSSL's `HMAC()`.
/// For STUN MESSAGE-INTEGRITY (RFC 8489 §14.5/§14.6) and tests. The SRTP per-packet tag uses
/// `SRTPAuthenticator`, which keeps the keyed state and never allocates.
public enum HMAC {
    /// HMAC-SHA1, 20 bytes (RFC 2202 test cases).
    public static func sha1(key: [UInt8], data: [UInt8]) -> [UInt8] { mac(EVP_sha1(), "sha1", key, data) }
    /// HMAC-SHA256, 32 bytes (RFC 4231 test cases).
    public static func sha256(key: [UInt8], data: [UInt8]) -> [UInt8] { mac(EVP_sha256(), "sha256", key, data) }

    private static func mac(_ md: OpaquePointer?, _ name: String, _ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // OpenSSL wants non-NULL pointers even for empty inputs; a one-byte stand-in is never read.
        let k = key.isEmpty ? [0] : key
        let d = data.isEmpty ? [0] : data
        let result = k.withUnsafeBytes { keyBytes in
            d.withUnsafeBufferPointer { dataBytes in
                out.withUnsafeMutableBufferPointer { output in
                    CLiveOpenSSL.HMAC(md, keyBytes.baseAddress, Int32(key.count),
                                      dataBytes.baseAddress, data.count, output.baseAddress, &length)
                }
            }
        }
        guard result != nil else { fatalError(OpenSSLError.drain("HMAC(\(name))").description) }
        out.removeSubrange(Int(length)...)
        return out
    }
}
