import Foundation

/// Room ids as the relay uses them (room 42 of the stream is chat room 42): 1-64 characters
/// of A-Z a-z 0-9 '-' '_' '.', not "." or "..", so they never need escaping in paths, SQL logs
/// or JSON.
enum ChatRoomID {
    static func isValid(_ raw: String) -> Bool {
        // "." and ".." are path dot segments (RFC 3986 §5.2.4): clients would resolve them away.
        !raw.isEmpty && raw.utf8.count <= 64 && raw != "." && raw != ".." && raw.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    /// The room id a path segment names, nil when there is none. RFC 3986 §2.1: percent-encoded
    /// octets are decoded first (`%34%32` is room 42), and what they decode to must follow the
    /// rule (`%2F`, `%2E%2E` are refused, as is an encoding that is not UTF-8).
    static func fromPath(_ segment: String) -> String? {
        guard let raw = segment.removingPercentEncoding, isValid(raw) else { return nil }
        return raw
    }

    /// ``fromPath(_:)``, or 400.
    static func validated(_ segment: String) throws -> String {
        guard let room = fromPath(segment) else {
            throw ChatHTTPError(.badRequest, "room id must be 1-64 characters of A-Z a-z 0-9 - _ . (not . or ..)")
        }
        return room
    }
}
