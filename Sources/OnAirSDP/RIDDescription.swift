/// RFC 8851 §10 `a=rid:<rid-id> <send|recv> [pt=<fmt>,...;<restriction>=<value>;...]`: one
/// RTP stream of a simulcast set.
public struct RIDDescription: SDPAttributeValue {
    public static let attributeName = "rid"

    public enum Direction: String, Sendable, Equatable {
        case send
        case recv
    }

    public var id: String
    public var direction: Direction
    /// "pt=" and restrictions (max-width, max-fps, ...), in the order written.
    public var parameters: [FormatParameter]

    public init(id: String, direction: Direction, parameters: [FormatParameter] = []) {
        self.id = id
        self.direction = direction
        self.parameters = parameters
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard parts.count == 2 || parts.count == 3 else {
            throw SDPError("a=rid must be <rid-id> <send|recv> [<params>]")
        }
        guard Self.isRIDID(parts[0]) else {
            throw SDPError("a=rid id \"\(parts[0])\" must be letters, digits, '-' or '_' (RFC 8851 §10)")
        }
        guard let direction = Direction(rawValue: String(parts[1])) else {
            throw SDPError("a=rid direction must be send or recv, not \"\(parts[1])\"")
        }
        var parameters: [FormatParameter] = []
        if parts.count == 3 {
            for piece in parts[2].split(separator: ";") {
                let (name, value) = SDPText.splitOnce(piece, at: UInt8(ascii: "="))
                parameters.append(FormatParameter(String(name), value.map(String.init)))
            }
        }
        self.init(id: String(parts[0]), direction: direction, parameters: parameters)
    }

    /// RFC 8851 §10 rid-id: 1*(alpha-numeric / "-" / "_").
    static func isRIDID(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// The payload types the "pt=" restriction allows, or nil when absent (all of the m= line).
    public var payloadTypes: [UInt8]? {
        guard let list = parameters.value(for: "pt") else { return nil }
        return list.split(separator: ",").compactMap { SDPText.decimal($0, as: UInt8.self) }
    }

    public var attributeValue: String {
        var text = id + " " + direction.rawValue
        if !parameters.isEmpty { text += " " + parameters.formatParameterText }
        return text
    }
}
