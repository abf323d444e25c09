/// RFC 8866 §5.8 bandwidth line: `b=<bwtype>:<bandwidth>` (e.g. `b=AS:2500`, `b=TIAS:2500000`).
public struct SDPBandwidth: Sendable, Equatable {
    public var type: String
    public var value: UInt64

    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }

    init(parsing text: Substring) throws(SDPError) {
        let (type, rest) = SDPText.splitOnce(text, at: UInt8(ascii: ":"))
        guard SDPText.isToken(type), let rest, let value = SDPText.decimal(rest, as: UInt64.self) else {
            throw SDPError("b= must be <bwtype>:<number>")
        }
        self.init(type: String(type), value: value)
    }

    var lineValue: String { "\(type):\(value)" }
}
