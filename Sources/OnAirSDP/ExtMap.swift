/// RFC 8285 §7 `a=extmap:<id>[/<direction>] <URI> [<extension attributes>]`: an RTP header
/// extension and the local id it is sent with.
public struct ExtMap: SDPAttributeValue {
    public static let attributeName = "extmap"

    /// 1...14 for one-byte headers, 1...255 with two-byte headers; 4096...4351 only appear in
    /// offers (RFC 8285 §7), so the type is wider than the header field.
    public var id: UInt16
    public var direction: MediaDirection?
    public var uri: String
    public var extensionAttributes: String?

    public init(id: UInt16, direction: MediaDirection? = nil, uri: String, extensionAttributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.extensionAttributes = extensionAttributes
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard parts.count >= 2 else { throw SDPError("a=extmap must be <id>[/<direction>] <URI>") }
        let (idText, directionText) = SDPText.splitOnce(parts[0], at: UInt8(ascii: "/"))
        guard let id = SDPText.decimal(idText, as: UInt16.self), id >= 1, id <= 4351 else {
            throw SDPError("a=extmap id \"\(idText)\" is not a number 1-4351")
        }
        var direction: MediaDirection? = nil
        if let directionText {
            guard let parsed = MediaDirection(rawValue: String(directionText)) else {
                throw SDPError("a=extmap direction \"\(directionText)\" is not a media direction")
            }
            direction = parsed
        }
        let attributes = parts.count > 2 ? parts[2...].joined(separator: " ") : nil
        self.init(id: id, direction: direction, uri: String(parts[1]), extensionAttributes: attributes)
    }

    public var attributeValue: String {
        var text = String(id)
        if let direction { text += "/" + direction.rawValue }
        text += " " + uri
        if let extensionAttributes { text += " " + extensionAttributes }
        return text
    }
}
