/// Room ids as the relay uses them (room 42 of the stream is chat room 42): 1-64 characters
/// of A-Z a-z 0-9 '-' '_' '.', so they never need escaping in paths, SQL logs or JSON.
enum ChatRoomID {
    static func isValid(_ raw: String) -> Bool {
        !raw.isEmpty && raw.utf8.count <= 64 && raw.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }

    static func validated(_ raw: String) throws -> String {
        guard isValid(raw) else { throw ChatHTTPError(.badRequest, "room id must be 1-64 characters of A-Z a-z 0-9 - _ .") }
        return raw
    }
}
