/// RFC 5576 §4.2 `a=ssrc-group:<semantics> <ssrc-id> ...`: "FID" pairs a media SSRC with its
/// RTX SSRC (RFC 4588 §8.3), "SIM" lists simulcast layers, "FEC-FR" pairs with FEC (RFC 5956).
public struct SSRCGroup: SDPAttributeValue {
    public static let attributeName = "ssrc-group"

    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard let semantics = parts.first, SDPText.isToken(semantics), parts.count >= 2 else {
            throw SDPError("a=ssrc-group must be <semantics> <ssrc> ...")
        }
        var ssrcs: [UInt32] = []
        for part in parts.dropFirst() {
            guard let ssrc = SDPText.decimal(part, as: UInt32.self) else {
                throw SDPError("a=ssrc-group SSRC \"\(part)\" is not a 32-bit number")
            }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(semantics), ssrcs: ssrcs)
    }

    public var attributeValue: String {
        ([semantics] + ssrcs.map { String($0) }).joined(separator: " ")
    }

    /// Flow identification: the media SSRC and its retransmission SSRC.
    public static let flowIdentification = "FID"
    public static let simulcast = "SIM"
    public static let forwardErrorCorrection = "FEC-FR"
}
