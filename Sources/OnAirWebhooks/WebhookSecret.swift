import Foundation
import OnAirCrypto

/// A Standard Webhooks signing secret: `whsec_` followed by base64 of 24-64 random bytes.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "whsec_"
    public let bytes: [UInt8]

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case missingPrefix
        case notBase64
        case tooShort(Int)

        public var description: String {
            switch self {
            case .missingPrefix: return "a webhook secret starts with whsec_"
            case .notBase64: return "the part after whsec_ is not base64"
            case .tooShort(let n): return "a webhook secret needs at least 16 bytes of key, got \(n)"
            }
        }
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses `whsec_<base64>`.
    public init(_ text: String) throws(ParseError) {
        guard text.hasPrefix(Self.prefix) else { throw .missingPrefix }
        guard let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))) else { throw .notBase64 }
        guard data.count >= 16 else { throw .tooShort(data.count) }
        bytes = Array(data)
    }

    /// A new random 32-byte secret.
    public static func generate() -> WebhookSecret {
        WebhookSecret(bytes: SecureRandom.bytes(32))
    }

    /// The `whsec_...` text form.
    public var encoded: String { Self.prefix + Data(bytes).base64EncodedString() }

    /// Never the key itself: secrets end up in logs by accident.
    public var description: String { "whsec_…(\(bytes.count) bytes)" }
}
