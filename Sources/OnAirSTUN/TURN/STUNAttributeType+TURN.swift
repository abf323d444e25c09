/// The attributes TURN adds (RFC 8656 §18.2). Deliberately not in ``STUNAttributeType/understood``:
/// the ICE-lite agent does not speak TURN and answers requests carrying them with 420.
extension STUNAttributeType {
    /// RFC 8656 §18.1 CHANNEL-NUMBER
    public static let channelNumber = STUNAttributeType(rawValue: 0x000C)
    /// RFC 8656 §18.2 LIFETIME
    public static let lifetime = STUNAttributeType(rawValue: 0x000D)
    /// RFC 8656 §18.3 XOR-PEER-ADDRESS
    public static let xorPeerAddress = STUNAttributeType(rawValue: 0x0012)
    /// RFC 8656 §18.4 DATA
    public static let data = STUNAttributeType(rawValue: 0x0013)
    /// RFC 8656 §18.5 XOR-RELAYED-ADDRESS
    public static let xorRelayedAddress = STUNAttributeType(rawValue: 0x0016)
    /// RFC 8656 §18.7 REQUESTED-TRANSPORT
    public static let requestedTransport = STUNAttributeType(rawValue: 0x0019)
    /// RFC 8656 §18.8 DONT-FRAGMENT
    public static let dontFragment = STUNAttributeType(rawValue: 0x001A)
}
