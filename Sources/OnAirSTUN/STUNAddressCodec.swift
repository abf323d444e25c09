import OnAirWire

/// The shared layout of MAPPED-ADDRESS (RFC 8489 §14.1) and XOR-MAPPED-ADDRESS (§14.2):
/// a reserved byte, the family (0x01 IPv4, 0x02 IPv6), the port, then 4 or 16 address bytes.
/// XOR-MAPPED-ADDRESS XORs the port with the top 16 bits of the magic cookie and the address
/// with the cookie (IPv4) or the cookie followed by the transaction ID (IPv6), so that NATs
/// rewriting addresses inside payloads leave it alone.
enum STUNAddressCodec {
    static let familyIPv4: UInt8 = 0x01
    static let familyIPv6: UInt8 = 0x02

    /// `transactionID` nil encodes a plain MAPPED-ADDRESS.
    static func encode(_ address: TransportAddress, transactionID: [UInt8]?) -> [UInt8] {
        precondition(transactionID == nil || transactionID?.count == 12, "transaction ID must be 12 bytes")
        let mask = transactionID.map(xorMask) ?? []
        var out: [UInt8] = [0]
        let port = transactionID == nil ? address.port : address.port ^ UInt16(STUNMessage.magicCookie >> 16)
        switch address.ip {
        case .v4(let ip):
            out.append(familyIPv4)
            out.append(contentsOf: [UInt8(port >> 8), UInt8(port & 0xFF)])
            let value = transactionID == nil ? ip : ip ^ STUNMessage.magicCookie
            out.append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
        case .v6(let bytes):
            // TransportAddress's contract is 16 octets; anything else is a caller bug.
            precondition(bytes.count == 16, "IPv6 address must have 16 bytes, got \(bytes.count)")
            out.append(familyIPv6)
            out.append(contentsOf: [UInt8(port >> 8), UInt8(port & 0xFF)])
            for i in 0..<16 { out.append(mask.isEmpty ? bytes[i] : bytes[i] ^ mask[i]) }
        }
        return out
    }

    /// Parses an address value; `transactionID` nil reads a plain MAPPED-ADDRESS.
    static func decode(_ value: [UInt8], transactionID: [UInt8]?) throws(WireError) -> TransportAddress {
        guard value.count >= 4 else { throw .invalid("address attribute shorter than 4 bytes") }
        var port = UInt16(value[2]) << 8 | UInt16(value[3])
        if transactionID != nil { port ^= UInt16(STUNMessage.magicCookie >> 16) }
        switch value[1] {
        case familyIPv4:
            guard value.count == 8 else { throw .invalid("IPv4 address attribute must be 8 bytes, got \(value.count)") }
            var ip = UInt32(value[4]) << 24 | UInt32(value[5]) << 16 | UInt32(value[6]) << 8 | UInt32(value[7])
            if transactionID != nil { ip ^= STUNMessage.magicCookie }
            return TransportAddress(ip: .v4(ip), port: port)
        case familyIPv6:
            guard value.count == 20 else { throw .invalid("IPv6 address attribute must be 20 bytes, got \(value.count)") }
            var ip = Array(value[4..<20])
            if let transactionID {
                guard transactionID.count == 12 else { throw .invalid("transaction ID must be 12 bytes") }
                let mask = xorMask(transactionID)
                for i in 0..<16 { ip[i] ^= mask[i] }
            }
            return TransportAddress(ip: .v6(IPv6Address(ip)), port: port)
        default:
            throw .invalid("unknown address family 0x\(String(value[1], radix: 16))")
        }
    }

    /// The 16-byte IPv6 mask: magic cookie then transaction ID (RFC 8489 §14.2).
    private static func xorMask(_ transactionID: [UInt8]) -> [UInt8] {
        let c = STUNMessage.magicCookie
        return [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)] + transactionID
    }
}
