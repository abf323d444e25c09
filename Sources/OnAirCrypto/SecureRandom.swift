import CLiveOpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
/// Used for STUN transaction IDs, ICE credentials, SSRCs and initial sequence numbers
/// (RFC 3550 §5.1 wants them unpredictable).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // Continuing without entropy would silently make every identifier guessable.
        guard ok == 1 else { fatalError(OpenSSLError.drain("RAND_bytes").description) }
        return out
    }

    /// A random 32-bit value.
    public static func uint32() -> UInt32 {
        bytes(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A random 64-bit value.
    public static func uint64() -> UInt64 {
        bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
