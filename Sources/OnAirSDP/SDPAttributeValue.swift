/// A typed view of one attribute value (the text after "a=name:").
///
/// The raw `SDPAttribute` stays the source of truth; a conforming type parses it, and renders
/// itself back with `attributeValue`.
public protocol SDPAttributeValue: Sendable, Equatable {
    /// The attribute name this value belongs to, e.g. "rtpmap".
    static var attributeName: String { get }
    /// Parses the attribute value (without the "name:" prefix).
    init(attributeValue: String) throws(SDPError)
    /// The attribute value as written on the wire (without the "name:" prefix).
    var attributeValue: String { get }
}
