/// Why a DTLS object could not be built. Failures *during* a handshake are not thrown: the
/// endpoint reports them as ``DTLSOutput/failed(_:)`` so the caller can still send the alert.
public enum DTLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An SDP `a=fingerprint` value we cannot use (RFC 8122 §5).
    case invalidFingerprint(String)
    /// A hash function name that RFC 8122 §5 allows but we do not support (e.g. "md5").
    case unsupportedHashFunction(String)
    /// An argument outside what DTLS allows (an MTU too small for a record, an empty profile list).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .invalidFingerprint(let reason): return "invalid fingerprint: \(reason)"
        case .unsupportedHashFunction(let name): return "unsupported fingerprint hash function \"\(name)\""
        case .invalidArgument(let reason): return "invalid argument: \(reason)"
        }
    }
}
