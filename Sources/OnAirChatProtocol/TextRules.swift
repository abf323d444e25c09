/// What a display name and a message may contain. Counted in Unicode scalars (what a
/// database column and a JSON string hold), trimmed of surrounding white space.
public enum TextRules {
    public enum Verdict: Equatable, Sendable {
        case ok(String)
        case refused(ChatErrorCode, String)
    }

    /// 1...`maxChars` scalars, no control characters (newlines included: a name is one line).
    public static func displayName(_ raw: String, maxChars: Int) -> Verdict {
        let name = trimmed(raw)
        guard !name.isEmpty else { return .refused(.badName, "the name is empty") }
        guard name.unicodeScalars.count <= maxChars else { return .refused(.badName, "names are at most \(maxChars) characters") }
        guard !name.unicodeScalars.contains(where: isControl) else {
            return .refused(.badName, "names cannot contain control characters")
        }
        return .ok(name)
    }

    /// 1...`maxChars` scalars; line feeds and tabs are kept, other control characters refused.
    public static func message(_ raw: String, maxChars: Int) -> Verdict {
        let text = trimmed(raw)
        guard !text.isEmpty else { return .refused(.emptyMessage, "the message is empty") }
        let count = text.unicodeScalars.count
        guard count <= maxChars else { return .refused(.tooLong, "messages are at most \(maxChars) characters (this one has \(count))") }
        guard !text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" }) else {
            return .refused(.badRequest, "messages cannot contain control characters")
        }
        return .ok(text)
    }

    private static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
