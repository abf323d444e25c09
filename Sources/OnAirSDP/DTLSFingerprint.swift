import OnAirWire

/// RFC 8122 §5 `a=fingerprint:<hash-func> <fingerprint>`: the hash of the certificate the peer
/// will present in DTLS. Bytes are written as upper-case hex pairs joined by ':' (UHEX).
public struct DTLSFingerprint: SDPAttributeValue, Hashable, CustomStringConvertible {
    public static let attributeName = "fingerprint"

    /// Hash function name, lower-cased ("sha-256"); RFC 8122 says it is case-insensitive.
    public var algorithm: String
    /// The digest bytes.
    public var bytes: [UInt8]

    public init(algorithm: String = "sha-256", bytes: [UInt8]) {
        self.algorithm = SDPText.asciiLowercased(algorithm)
        self.bytes = bytes
    }

    /// Digest length of the RFC 8122 §5 hash functions, used to reject truncated fingerprints.
    static func digestLength(of algorithm: String) -> Int? {
        switch algorithm {
        case "md2", "md5": return 16
        case "sha-1": return 20
        case "sha-224": return 28
        case "sha-256": return 32
        case "sha-384": return 48
        case "sha-512": return 64
        default: return nil
        }
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard parts.count == 2, SDPText.isToken(parts[0]) else {
            throw SDPError("a=fingerprint must be <hash-func> <hex bytes joined by ':'>")
        }
        let algorithm = SDPText.asciiLowercased(parts[0])
        guard let bytes = Hex.decode(String(parts[1])), !bytes.isEmpty else {
            throw SDPError("a=fingerprint value \"\(parts[1])\" is not hex")
        }
        if let expected = Self.digestLength(of: algorithm), expected != bytes.count {
            throw SDPError("a=fingerprint \(algorithm) needs \(expected) bytes, found \(bytes.count)")
        }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    public var attributeValue: String {
        algorithm + " " + Hex.encode(bytes, separator: ":", uppercase: true)
    }

    public var description: String { attributeValue }
}
