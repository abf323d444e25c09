/// RFC 8866 §5.7 connection line: `c=<nettype> <addrtype> <connection-address>`.
///
/// `address` keeps any multicast suffix ("/ttl/count") as written.
public struct SDPConnection: Sendable, Equatable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// `IN IP4 <address>` or `IN IP6 <address>`, chosen by whether the address has a ':'.
    public init(address: String) {
        self.init(addressType: address.utf8.contains(UInt8(ascii: ":")) ? "IP6" : "IP4", address: address)
    }

    init(parsing text: Substring) throws(SDPError) {
        let parts = SDPText.fields(text)
        guard parts.count == 3 else {
            throw SDPError("c= needs 3 fields (nettype addrtype address), found \(parts.count)")
        }
        self.init(networkType: String(parts[0]), addressType: String(parts[1]), address: String(parts[2]))
    }

    var lineValue: String { "\(networkType) \(addressType) \(address)" }
}
