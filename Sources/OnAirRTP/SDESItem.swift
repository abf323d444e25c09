/// One RFC 3550 §6.5 SDES item: a type octet, a length octet and up to 255 bytes of
/// UTF-8 text (PRIV, type 8, carries a prefix length and prefix inside the value).
public struct SDESItem: Sendable, Hashable {
    public static let cname: UInt8 = 1
    public static let name: UInt8 = 2
    public static let email: UInt8 = 3
    public static let phone: UInt8 = 4
    public static let location: UInt8 = 5
    public static let tool: UInt8 = 6
    public static let note: UInt8 = 7
    public static let priv: UInt8 = 8

    /// 1...255; 0 ends an item list on the wire and is never an item.
    public var type: UInt8
    /// At most 255 bytes; longer values are cut when written.
    public var value: [UInt8]

    public init(type: UInt8, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    public init(type: UInt8, text: String) {
        self.init(type: type, value: Array(text.utf8))
    }

    public static func cname(_ text: String) -> SDESItem { SDESItem(type: cname, text: text) }

    /// The value as text (invalid UTF-8 is replaced, not rejected).
    public var text: String { String(decoding: value, as: UTF8.self) }

    /// Bytes on the wire: type, length and value.
    var serializedSize: Int { 2 + min(value.count, 255) }
}
