/// One `<type>=<value>` line with its 1-based line number.
struct SDPLine {
    var number: Int
    var type: Character
    var value: Substring
}

/// Splits SDP text into typed lines (RFC 8866 §5): LF or CRLF ends a line, empty lines are
/// skipped, and anything that is not a lower-case letter followed by '=' is an error.
///
/// Works on UTF-8 bytes: Swift's `Character` treats "\r\n" as one grapheme, so splitting
/// Characters on "\n" would miss CRLF.
struct SDPLineReader {
    private let text: Substring
    private var position: Substring.UTF8View.Index
    private var number = 0

    init(_ text: String) {
        self.text = text[...]
        self.position = self.text.utf8.startIndex
    }

    mutating func next() throws(SDPError) -> SDPLine? {
        let utf8 = text.utf8
        while position < utf8.endIndex {
            number += 1
            let end = utf8[position...].firstIndex(of: 0x0A) ?? utf8.endIndex
            var lineBytes = utf8[position..<end]
            position = end < utf8.endIndex ? utf8.index(after: end) : end
            if lineBytes.last == 0x0D { lineBytes = lineBytes.dropLast() }
            if lineBytes.isEmpty { continue }
            guard lineBytes.count >= 2, let type = lineBytes.first, type >= UInt8(ascii: "a"), type <= UInt8(ascii: "z"),
                  lineBytes[lineBytes.index(after: lineBytes.startIndex)] == UInt8(ascii: "=") else {
                throw SDPError(line: number, "not a <type>=<value> line")
            }
            if lineBytes.contains(0x0D) || lineBytes.contains(0x00) {
                throw SDPError(line: number, "line holds a CR or NUL byte")
            }
            let value = Substring(lineBytes.dropFirst(2))
            return SDPLine(number: number, type: Character(Unicode.Scalar(type)), value: value)
        }
        return nil
    }
}
