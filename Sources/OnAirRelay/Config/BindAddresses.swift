import OnAirWire

/// `media.bind`: the addresses the media sockets bind to, one UDP socket and ICE-TCP listener
/// per address per worker. Written as one address or a list; "::" takes every IPv6 address
/// and, unless the list names an IPv4 one, every IPv4 address too (on a socket of its own:
/// dual stack without v4-mapped addresses).
public struct BindAddresses: Codable, Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// As configured.
    public var addresses: [String]

    public init(_ addresses: [String]) {
        self.addresses = addresses
    }

    public init(stringLiteral value: String) {
        self.init([value])
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            self.init([one])
        } else {
            self.init(try container.decode([String].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if addresses.count == 1 { try container.encode(addresses[0]) } else { try container.encode(addresses) }
    }

    public var description: String { addresses.joined(separator: ", ") }

    /// The sockets to bind, in order (the first is base 0): each configured address once, and
    /// "0.0.0.0" after "::" when no IPv4 address is listed.
    public func sockets() throws(Invalid) -> [TransportAddress] {
        guard !addresses.isEmpty else { throw Invalid(description: "media.bind lists no address") }
        var sockets: [TransportAddress] = []
        for text in addresses {
            guard let address = TransportAddress(host: Self.unbracketed(text), port: 0) else {
                throw Invalid(description: "media.bind: '\(text)' is not an IPv4 or IPv6 address")
            }
            if !sockets.contains(address) { sockets.append(address) }
        }
        guard sockets.count <= Int(UInt8.max) else { throw Invalid(description: "media.bind lists more than 255 addresses") }
        if sockets.contains(where: { !$0.isIPv4 && $0.isWildcard }) && !sockets.contains(where: \.isIPv4) {
            sockets.append(TransportAddress(ip: .v4(0), port: 0))
        }
        return sockets
    }

    static func unbracketed(_ text: String) -> String {
        text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }
}
