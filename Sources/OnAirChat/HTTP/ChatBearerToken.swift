import HTTPTypes
import Hummingbird

/// RFC 6750 §2.1 bearer tokens (`Authorization: Bearer <token>`) and the constant-time
/// comparison used for every token the chat checks.
enum ChatBearerToken {
    /// Throws 401 (with an RFC 6750 §3 challenge) unless the request carries `expected`.
    static func require(_ expected: String, in request: Request) throws {
        let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"onair-chat\""]
        guard let header = request.headers[.authorization] else {
            throw ChatHTTPError(.unauthorized, "needs Authorization: Bearer <bot token>", headers: challenge)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", matches(String(parts[1]), expected) else {
            throw ChatHTTPError(.unauthorized, "wrong bot token",
                                headers: [.wwwAuthenticate: "Bearer realm=\"onair-chat\", error=\"invalid_token\""])
        }
    }

    /// Equal strings, compared without an early exit (the time taken says nothing about the secret).
    static func matches(_ offered: String, _ expected: String) -> Bool {
        let a = Array(offered.utf8), b = Array(expected.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
