/// RFC 4145 §4 / RFC 5763 §5 `a=setup:` value: which side opens the DTLS connection.
public enum DTLSSetup: String, Sendable, Equatable, CaseIterable, SDPAttributeValue {
    /// Will act as client (sends ClientHello).
    case active
    /// Will act as server.
    case passive
    /// Offerer: either role; the answerer decides (JSEP requires offers to say actpass).
    case actpass
    /// No connection for now.
    case holdconn

    public static let attributeName = "setup"

    public init(attributeValue: String) throws(SDPError) {
        guard let setup = DTLSSetup(rawValue: attributeValue) else {
            throw SDPError("a=setup must be active, passive, actpass or holdconn, not \"\(attributeValue)\"")
        }
        self = setup
    }

    public var attributeValue: String { rawValue }
}
