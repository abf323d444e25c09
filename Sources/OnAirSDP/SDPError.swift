/// Why a session description (RFC 8866) or an SDP fragment (RFC 8840) could not be parsed.
///
/// `line` is 1-based and names the offending line of the text, so that an HTTP 400 body can tell a
/// WHIP/WHEP client exactly what was wrong. Typed attribute parsers throw without a line; the
/// description parser adds it.
public struct SDPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line number in the parsed text, when the error belongs to one line.
    public var line: Int?
    /// A human-readable reason.
    public var reason: String

    public init(line: Int? = nil, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "line \(line): \(reason)" }
        return reason
    }

    /// The same error, attributed to `line` unless it already names one.
    func located(at line: Int) -> SDPError {
        SDPError(line: self.line ?? line, reason)
    }
}
