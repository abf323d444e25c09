/// RFC 8866 §6.15 `a=fmtp:<format> <format specific parameters>`, parsed as the ';'-separated
/// `name=value` list that every WebRTC codec uses (RFC 6184 §8.1, RFC 7587 §6.1, RFC 4588 §8.6).
public struct FormatParameters: SDPAttributeValue {
    public static let attributeName = "fmtp"

    public var payloadType: UInt8
    /// The parameters in the order written.
    public var parameters: [FormatParameter]

    public init(payloadType: UInt8, parameters: [FormatParameter]) {
        self.payloadType = payloadType
        self.parameters = parameters
    }

    public init(attributeValue: String) throws(SDPError) {
        let (head, rest) = SDPText.splitOnce(attributeValue[...], at: UInt8(ascii: " "))
        let payloadType = try SDPText.payloadType(head, in: "a=fmtp")
        var parameters: [FormatParameter] = []
        for piece in (rest ?? "").split(separator: ";") {
            let item = SDPText.trimmed(piece)
            if item.isEmpty { continue }
            let (name, value) = SDPText.splitOnce(item, at: UInt8(ascii: "="))
            let trimmedName = SDPText.trimmed(name)
            guard !trimmedName.isEmpty else {
                throw SDPError("a=fmtp parameter \"\(item)\" has no name")
            }
            parameters.append(FormatParameter(String(trimmedName), value.map { String(SDPText.trimmed($0)) }))
        }
        self.init(payloadType: payloadType, parameters: parameters)
    }

    public var attributeValue: String {
        "\(payloadType) " + parameters.formatParameterText
    }

    /// The value of the parameter `name` (case-insensitive).
    public func value(for name: String) -> String? {
        parameters.value(for: name)
    }
}
