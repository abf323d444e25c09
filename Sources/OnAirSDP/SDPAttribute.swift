/// RFC 8866 §5.13 `a=` line: a property attribute `a=<name>` or a value attribute
/// `a=<name>:<value>`.
///
/// Attributes keep their raw text so that parse → serialize is exact; the typed views
/// (`RTPMap`, `ICECandidate`, ...) parse the value on demand.
public struct SDPAttribute: Sendable, Equatable, CustomStringConvertible {
    /// The attribute name (`att-field`), case-sensitive as registered (e.g. "rtpmap", "ice-ufrag").
    public var name: String
    /// The text after the first ':', or nil for a property attribute such as `a=rtcp-mux`.
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// A typed value as an attribute line (e.g. `SDPAttribute(RTPMap(...))`).
    public init<Value: SDPAttributeValue>(_ typed: Value) {
        self.init(Value.attributeName, typed.attributeValue)
    }

    /// Parses the text after "a=". The name must be a non-empty token (RFC 8866 §9 `att-field`).
    init(parsing text: Substring) throws(SDPError) {
        let (head, tail) = SDPText.splitOnce(text, at: UInt8(ascii: ":"))
        guard SDPText.isToken(head) else {
            throw SDPError("attribute name \"\(head)\" is not a token")
        }
        self.init(String(head), tail.map(String.init))
    }

    /// The text after "a=" on the wire.
    public var lineValue: String {
        guard let value else { return name }
        return name + ":" + value
    }

    public var description: String { "a=" + lineValue }
}
