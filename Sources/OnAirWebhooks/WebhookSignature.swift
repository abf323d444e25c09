import Foundation
import OnAirCrypto

/// Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256>` over
/// `"<webhook-id>.<webhook-timestamp>.<body>"`, several space-separated during secret
/// rotation (standard-webhooks spec, "Signature scheme").
public enum WebhookSignature {
    /// The header value for `body`, one `v1,` entry per secret (current first).
    public static func sign(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        let content = signedContent(id: id, timestamp: String(timestamp), body: body)
        return secrets.map { "v1," + Data(HMAC.sha256(key: $0.bytes, data: content)).base64EncodedString() }
            .joined(separator: " ")
    }

    /// Checks a delivery: the timestamp within `tolerance` of `now` (replay defence) and at
    /// least one `v1` signature made with one of `secrets`, compared in constant time.
    public static func verify(id: String, timestamp: String, signatureHeader: String, body: [UInt8],
                              secrets: [WebhookSecret], now: Date = Date(), tolerance: TimeInterval = 300)
        throws(WebhookVerificationError)
    {
        guard !id.isEmpty else { throw .missingHeader("webhook-id") }
        guard let seconds = Int64(timestamp) else { throw .missingHeader("webhook-timestamp") }
        let age = now.timeIntervalSince1970 - TimeInterval(seconds)
        guard abs(age) <= tolerance else { throw .timestampOutOfTolerance(age: age) }
        let content = signedContent(id: id, timestamp: timestamp, body: body)
        let offered = signatureHeader.split(separator: " ").compactMap { entry -> [UInt8]? in
            let parts = entry.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == "v1", let data = Data(base64Encoded: String(parts[1])) else { return nil }
            return Array(data)
        }
        guard !offered.isEmpty else { throw .noSignature }
        for secret in secrets {
            let expected = HMAC.sha256(key: secret.bytes, data: content)
            for candidate in offered where constantTimeEqual(candidate, expected) { return }
        }
        throw .badSignature
    }

    static func signedContent(id: String, timestamp: String, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}

/// Why a webhook delivery was refused.
public enum WebhookVerificationError: Error, Equatable, CustomStringConvertible {
    case missingHeader(String)
    case timestampOutOfTolerance(age: TimeInterval)
    case noSignature
    case badSignature

    public var description: String {
        switch self {
        case .missingHeader(let name): return "missing or malformed \(name) header"
        case .timestampOutOfTolerance(let age): return "webhook-timestamp is \(Int(age)) s off (more than 5 minutes)"
        case .noSignature: return "no v1 signature in webhook-signature"
        case .badSignature: return "no signature matches"
        }
    }
}
