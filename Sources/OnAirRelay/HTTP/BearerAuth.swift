import HTTPTypes
import Hummingbird

/// RFC 6750 §2.1 bearer tokens: `Authorization: Bearer <token>`.
enum BearerAuth {
    /// Throws 401 with a `WWW-Authenticate` challenge unless `expected` is nil (open) or matches.
    static func require(_ expected: String?, in request: Request, what: String) throws {
        guard let expected else { return }
        guard let header = request.headers[.authorization] else {
            throw RelayHTTPError(.unauthorized, "\(what) needs a Bearer token (Authorization: Bearer <token>)",
                                 headers: [.wwwAuthenticate: "Bearer realm=\"onair\""])
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw RelayHTTPError.unauthorized("the Authorization header must use the Bearer scheme")
        }
        guard constantTimeEqual(Array(parts[1].utf8), Array(expected.utf8)) else {
            throw RelayHTTPError.unauthorized("wrong token for \(what)")
        }
    }

    /// Compares without an early exit so the time taken says nothing about the token.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
