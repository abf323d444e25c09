import Foundation

/// Decodes the first PEM block of a text to DER (RFC 7468 §2), for independent digests.
enum TestPEM {
    static func der(_ pem: String) -> [UInt8]? {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard !body.isEmpty, let data = Data(base64Encoded: body) else { return nil }
        return Array(data)
    }
}
