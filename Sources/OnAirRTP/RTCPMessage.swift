import OnAirWire

/// What every RTCP packet struct offers: parsing from its body, exact sizing and
/// serialization (header included).
public protocol RTCPMessage: Sendable, Hashable {
    /// Parses the packet from `body`: the bytes after the 4-byte common header, without
    /// padding. `header.count` carries RC / SC / FMT.
    init(header: RTCPHeader, body: ByteReader) throws(WireError)

    /// Exact bytes on the wire, header included; always a multiple of 4.
    var serializedSize: Int { get }

    /// Appends the packet, header included, to `writer`.
    func serialize(into writer: inout ByteWriter)
}

extension RTCPMessage {
    /// The packet as a new array.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter(capacity: serializedSize)
        serialize(into: &writer)
        return writer.bytes
    }
}

extension ByteReader {
    /// Fails with a reason naming the packet when fewer than `count` bytes are left.
    mutating func require(_ count: Int, for what: @autoclosure () -> String) throws(WireError) {
        guard remaining >= count else {
            throw .invalid("\(what()) needs \(count) bytes, \(remaining) left")
        }
    }
}
