/// RFC 5576 §4.1 `a=ssrc:<ssrc-id> <attribute>[:<value>]`, e.g. "1575822119 cname:826891ab",
/// "3246587465 msid:stream track".
public struct SSRCAttribute: SDPAttributeValue {
    public static let attributeName = "ssrc"

    public var ssrc: UInt32
    /// The source attribute name ("cname", "msid", "label", ...).
    public var name: String
    /// The text after the first ':' of the source attribute, or nil.
    public var value: String?

    public init(ssrc: UInt32, name: String, value: String?) {
        self.ssrc = ssrc
        self.name = name
        self.value = value
    }

    public init(attributeValue: String) throws(SDPError) {
        let (head, rest) = SDPText.splitOnce(attributeValue[...], at: UInt8(ascii: " "))
        guard let ssrc = SDPText.decimal(head, as: UInt32.self) else {
            throw SDPError("a=ssrc id \"\(head)\" is not a 32-bit number")
        }
        guard let rest else { throw SDPError("a=ssrc needs an attribute after the SSRC") }
        let (name, value) = SDPText.splitOnce(SDPText.trimmed(rest), at: UInt8(ascii: ":"))
        guard SDPText.isToken(name) else { throw SDPError("a=ssrc attribute \"\(name)\" is not a token") }
        self.init(ssrc: ssrc, name: String(name), value: value.map(String.init))
    }

    public var attributeValue: String {
        guard let value else { return "\(ssrc) \(name)" }
        return "\(ssrc) \(name):\(value)"
    }
}
