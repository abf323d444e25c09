import OnAirWire

/// Builds a compound RTCP packet (RFC 3550 §6.1): packets are concatenated; each one's
/// length field already makes it self-delimiting. RFC 3550 wants SR or RR first and an
/// SDES with CNAME in every compound; RFC 5506 reduced-size RTCP drops that rule for
/// feedback, so the order is the caller's.
public struct RTCPCompoundBuilder: Sendable {
    public private(set) var packets: [RTCPPacket]

    public init(_ packets: [RTCPPacket] = []) { self.packets = packets }

    public mutating func append(_ packet: RTCPPacket) { packets.append(packet) }

    public var serializedSize: Int { packets.reduce(0) { $0 + $1.serializedSize } }

    public func serialize(into writer: inout ByteWriter) {
        for packet in packets { packet.serialize(into: &writer) }
    }

    public func build() -> [UInt8] {
        var writer = ByteWriter(capacity: serializedSize)
        serialize(into: &writer)
        return writer.bytes
    }

    /// The packets as one compound packet.
    public static func serialize(_ packets: [RTCPPacket]) -> [UInt8] {
        RTCPCompoundBuilder(packets).build()
    }
}
