/// Room identifiers are path segments and log fields: 1-64 characters of letters, digits,
/// '-', '_' and '.', so they never need escaping anywhere.
enum RoomID {
    static func validated(_ raw: String) throws -> String {
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
