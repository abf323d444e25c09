/// Why an SRTP/SRTCP operation (RFC 3711, RFC 7714) refused a key or a packet.
///
/// Every case is cheap to build (no allocation on the per-packet path except `cryptoFailure`,
/// which only happens when OpenSSL itself breaks).
public enum SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The master key has the wrong length for the profile (or is not 16/24/32 bytes for the KDF).
    case invalidKeyLength(expected: Int, got: Int)
    /// The master salt has the wrong length for the profile.
    case invalidSaltLength(expected: Int, got: Int)
    /// The packet is shorter than its header plus the SRTP trailer requires.
    case tooShort(needed: Int, got: Int)
    /// The bytes are not an RTP/RTCP packet we can protect (version, CSRC count, extension).
    case malformed(reason: String)
    /// The caller's buffer cannot hold the protected packet (`length + overhead`).
    case bufferTooSmall(needed: Int, capacity: Int)
    /// The authentication tag did not verify (RFC 3711 §3.3 step 5; RFC 7714 §10).
    case authenticationFailed
    /// The packet index was already received or is older than the replay window
    /// (RFC 3711 §3.3.2).
    case replayed(index: UInt64)
    /// Sending one more packet would reuse a packet index (48-bit SRTP index or 31-bit SRTCP
    /// index exhausted): the session must be re-keyed (RFC 3711 §9.2).
    case indexExhausted
    /// More SSRCs than the context keeps state for (a fixed bound, so a peer cannot grow it).
    case tooManyStreams(limit: Int)
    /// OpenSSL failed where it should not (e.g. context allocation).
    case cryptoFailure(OpenSSLError)

    public var description: String {
        switch self {
        case .invalidKeyLength(let expected, let got): return "SRTP master key is \(got) bytes, expected \(expected)"
        case .invalidSaltLength(let expected, let got): return "SRTP master salt is \(got) bytes, expected \(expected)"
        case .tooShort(let needed, let got): return "SRTP packet too short: \(got) bytes, need at least \(needed)"
        case .malformed(let reason): return "not an RTP/RTCP packet: \(reason)"
        case .bufferTooSmall(let needed, let capacity): return "SRTP buffer holds \(capacity) bytes, needs \(needed)"
        case .authenticationFailed: return "SRTP authentication failed"
        case .replayed(let index): return "SRTP replay: index \(index) already seen or too old"
        case .indexExhausted: return "SRTP packet index exhausted: re-key"
        case .tooManyStreams(let limit): return "SRTP context already tracks \(limit) SSRCs"
        case .cryptoFailure(let error): return "SRTP crypto failure: \(error)"
        }
    }
}
