/// RFC 5888 §5 `a=group:<semantics> <mid> ...` at session level; "BUNDLE" (RFC 9143 §7)
/// puts the listed m= lines on one transport, the first mid being the offerer's tagged one.
public struct SDPGroup: SDPAttributeValue {
    public static let attributeName = "group"
    public static let bundle = "BUNDLE"

    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard let semantics = parts.first, SDPText.isToken(semantics) else {
            throw SDPError("a=group must be <semantics> <mid> ...")
        }
        self.init(semantics: String(semantics), mids: parts.dropFirst().map(String.init))
    }

    public var attributeValue: String {
        ([semantics] + mids).joined(separator: " ")
    }
}
