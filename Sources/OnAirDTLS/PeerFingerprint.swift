import CLiveOpenSSL
import OnAirWire

/// The certificate fingerprint a peer announced in SDP (`a=fingerprint:sha-256 AB:CD:…`,
/// RFC 8122 §5). RFC 8827 §6.5 makes it the only authentication of a WebRTC DTLS peer: the
/// self-signed certificate it presents must hash to exactly these bytes.
public struct PeerFingerprint: Sendable, Equatable, CustomStringConvertible {
    /// The hash function as SDP names it, lower-cased ("sha-256").
    public let algorithm: String
    /// The digest of the DER-encoded certificate.
    public let bytes: [UInt8]

    /// Hash functions we accept, with their digest lengths. The registry also holds md2/md5
    /// (obsolete, RFC 8122 deprecates them) and sha-224, which no WebRTC stack sends.
    static let supportedAlgorithms: [String: Int] = ["sha-1": 20, "sha-256": 32, "sha-384": 48, "sha-512": 64]

    /// - Throws: ``DTLSError/unsupportedHashFunction(_:)`` for an unknown name,
    ///   ``DTLSError/invalidFingerprint(_:)`` when the length does not fit the hash.
    public init(algorithm: String, bytes: [UInt8]) throws {
        let name = algorithm.lowercased()
        guard let length = Self.supportedAlgorithms[name] else { throw DTLSError.unsupportedHashFunction(algorithm) }
        guard bytes.count == length else {
            throw DTLSError.invalidFingerprint("\(name) digest has \(bytes.count) bytes, expected \(length)")
        }
        self.algorithm = name
        self.bytes = bytes
    }

    /// Parses the value of an SDP fingerprint attribute: `hash-func SP fingerprint`, the
    /// fingerprint being two-digit hex bytes separated by colons (RFC 8122 §5; upper case is
    /// what the RFC writes, but we accept either case).
    public init(sdpValue: String) throws {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            throw DTLSError.invalidFingerprint("expected \"<hash-func> <XX:XX:...>\", got \"\(sdpValue)\"")
        }
        var bytes: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, let decoded = Hex.decode(String(pair)), decoded.count == 1 else {
                throw DTLSError.invalidFingerprint("\"\(pair)\" is not a two-digit hex byte")
            }
            bytes.append(decoded[0])
        }
        try self.init(algorithm: String(parts[0]), bytes: bytes)
    }

    /// The attribute value, e.g. `sha-256 AB:CD:…`.
    public var sdpValue: String { "\(algorithm) \(Hex.encode(bytes, separator: ":", uppercase: true))" }

    public var description: String { sdpValue }

    /// True when `certificate` (an `X509 *`) hashes to our bytes under our hash function.
    func matches(certificate: OpaquePointer) -> Bool {
        guard let digest = Self.digest(of: certificate, algorithm: algorithm) else { return false }
        return constantTimeEqual(digest, bytes)
    }

    /// The fingerprint of a DER certificate (`X509_digest`) under an SDP hash-function name.
    static func digest(of certificate: OpaquePointer, algorithm: String) -> [UInt8]? {
        let md: OpaquePointer?
        switch algorithm {
        case "sha-1": md = EVP_sha1()
        case "sha-256": md = EVP_sha256()
        case "sha-384": md = EVP_sha384()
        case "sha-512": md = EVP_sha512()
        default: return nil
        }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { X509_digest(certificate, md, $0.baseAddress, &length) }
        guard ok == 1 else { return nil }
        return Array(out.prefix(Int(length)))
    }

    /// Compares without an early exit. Fingerprints are public, so this is hygiene, not a defence.
    private func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
