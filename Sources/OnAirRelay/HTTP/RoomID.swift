import Foundation

/// Room identifiers are path segments and log fields: 1-64 characters of letters, digits,
/// '-', '_' and '.', so they never need escaping anywhere.
enum RoomID {
    /// The room id a path segment names. RFC 3986 §2.1: percent-encoded octets are decoded
    /// first (`%34%32` is room 42), and what they decode to must follow the rule (`%2F`,
    /// `%2E%2E` are refused, as is an encoding that is not UTF-8).
    static func validated(_ segment: String) throws -> String {
        let raw = segment.removingPercentEncoding ?? ""
        let allowed = raw.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
        // "." and ".." are path dot segments (RFC 3986 §5.2.4): clients would resolve them away.
        guard !raw.isEmpty, raw.utf8.count <= 64, allowed, raw != ".", raw != ".." else {
            throw RelayHTTPError(.badRequest, "room id must be 1-64 characters of A-Z a-z 0-9 - _ . (not . or ..)")
        }
        return raw
    }
}
