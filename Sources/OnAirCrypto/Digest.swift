import CLiveOpenSSL

/// One-shot message digests through OpenSSL EVP (FIPS 180-4).
/// Used for certificate fingerprints (RFC 8122 §5), TURN long-term keys and tests; not a
/// per-packet path.
public enum Digest {
    /// MD5 (RFC 1321), 16 bytes: only for the STUN long-term credential key (RFC 8489 §9.2.2),
    /// which the protocol fixes; never as a security hash of our own.
    public static func md5(_ data: [UInt8]) -> [UInt8] { digest(data, EVP_md5(), "md5") }
    /// SHA-1, 20 bytes.
    public static func sha1(_ data: [UInt8]) -> [UInt8] { digest(data, EVP_sha1(), "sha1") }
    /// SHA-256, 32 bytes.
    public static func sha256(_ data: [UInt8]) -> [UInt8] { digest(data, EVP_sha256(), "sha256") }
    /// SHA-384, 48 bytes.
    public static func sha384(_ data: [UInt8]) -> [UInt8] { digest(data, EVP_sha384(), "sha384") }
    /// SHA-512, 64 bytes.
    public static func sha512(_ data: [UInt8]) -> [UInt8] { digest(data, EVP_sha512(), "sha512") }

    private static func digest(_ data: [UInt8], _ md: OpaquePointer?, _ name: String) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, md, nil)
            }
        }
        // A built-in digest over memory cannot fail short of memory exhaustion; trapping with
        // OpenSSL's reason beats returning a wrong fingerprint.
        guard ok == 1 else { fatalError(OpenSSLError.drain("EVP_Digest(\(name))").description) }
        out.removeSubrange(Int(length)...)
        return out
    }
}
