import OnAirWire

/// Bytes to send and where: what the sans-I/O ICE types hand to the socket layer.
public struct STUNDatagram: Hashable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]
    public var address: TransportAddress

    public init(bytes: [UInt8], address: TransportAddress) {
        self.bytes = bytes
        self.address = address
    }

    public var description: String { "\(bytes.count) bytes to \(address)" }
}
