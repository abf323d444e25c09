/// RFC 8866 §5.2 origin line: `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>`.
///
/// `sessionID` and `sessionVersion` stay strings of digits: the grammar allows any length, and
/// some stacks write 19-digit ids that only just fit in 64 bits.
public struct SDPOrigin: Sendable, Equatable {
    public var username: String
    public var sessionID: String
    public var sessionVersion: String
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(username: String = "-", sessionID: String, sessionVersion: String = "2",
                networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init(parsing text: Substring) throws(SDPError) {
        let parts = SDPText.fields(text)
        guard parts.count == 6 else {
            throw SDPError("o= needs 6 fields (username sess-id sess-version nettype addrtype address), found \(parts.count)")
        }
        guard Self.isDigits(parts[1]) else {
            throw SDPError("o= sess-id \"\(parts[1])\" is not a number")
        }
        guard Self.isDigits(parts[2]) else {
            throw SDPError("o= sess-version \"\(parts[2])\" is not a number")
        }
        self.init(username: String(parts[0]), sessionID: String(parts[1]), sessionVersion: String(parts[2]),
                  networkType: String(parts[3]), addressType: String(parts[4]), address: String(parts[5]))
    }

    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    var lineValue: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}
