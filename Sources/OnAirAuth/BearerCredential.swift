/// RFC 6750 §2.1: the token of an `Authorization: Bearer <token>` header, and the
/// constant-time comparison every static token check uses (the relay's and the chat's).
public enum BearerCredential {
    /// The token, or nil when the header does not use the Bearer scheme (case-insensitive, RFC 7235 §2.1).
    public static func token(fromAuthorization header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // One space exactly: a token with spaces around it is not the token (kept strict).
        return parts[1].isEmpty ? nil : String(parts[1])
    }

    /// Equal strings, compared without an early exit (the time taken says nothing about the secret).
    public static func constantTimeEqual(_ offered: String, _ expected: String) -> Bool {
        let a = Array(offered.utf8), b = Array(expected.utf8)
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }

    /// An RFC 6750 §3 challenge: `Bearer realm="R", error="E", error_description="D"`; the
    /// description keeps only the characters §3 allows in it (no `"` or `\`).
    public static func challenge(realm: String, error: String? = nil, description: String? = nil, scope: String? = nil) -> String {
        var value = "Bearer realm=\"\(realm)\""
        if let error { value += ", error=\"\(error)\"" }
        if let description {
            let safe = description.unicodeScalars.map { s -> String in
                (s.value >= 0x20 && s.value <= 0x7E && s != "\"" && s != "\\") ? String(s) : "'"
            }.joined()
            value += ", error_description=\"\(safe)\""
        }
        if let scope { value += ", scope=\"\(scope)\"" }
        return value
    }
}
