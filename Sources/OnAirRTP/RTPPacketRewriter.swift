import OnAirWire

/// In-place rewriting of RTP header fields for the fan-out hot path (RFC 3550 §5.1
/// offsets): no parsing beyond a length check, no allocation. A viewer's copy of a
/// publisher's packet gets its own SSRC, sequence numbers and timestamps this way.
public enum RTPPacketRewriter {
    @inline(__always)
    private static func requireFixedHeader(_ count: Int) throws(WireError) {
        guard count >= RTPHeader.fixedSize else {
            throw .invalid("RTP packet of \(count) bytes is shorter than the 12-byte fixed header")
        }
    }

    public static func setSSRC(_ ssrc: UInt32, in packet: UnsafeMutableRawBufferPointer) throws(WireError) {
        try requireFixedHeader(packet.count)
        packet.setUInt32(ssrc, at: 8)
    }

    public static func setSequenceNumber(_ sequenceNumber: UInt16, in packet: UnsafeMutableRawBufferPointer) throws(WireError) {
        try requireFixedHeader(packet.count)
        packet.setUInt16(sequenceNumber, at: 2)
    }

    public static func setTimestamp(_ timestamp: UInt32, in packet: UnsafeMutableRawBufferPointer) throws(WireError) {
        try requireFixedHeader(packet.count)
        packet.setUInt32(timestamp, at: 4)
    }

    /// Sets the 7-bit payload type, keeping the marker bit.
    public static func setPayloadType(_ payloadType: UInt8, in packet: UnsafeMutableRawBufferPointer) throws(WireError) {
        try requireFixedHeader(packet.count)
        guard payloadType < 128 else { throw .invalid("RTP payload type \(payloadType) does not fit in 7 bits") }
        packet[1] = packet[1] & 0x80 | payloadType
    }

    public static func setMarker(_ marker: Bool, in packet: UnsafeMutableRawBufferPointer) throws(WireError) {
        try requireFixedHeader(packet.count)
        packet[1] = marker ? packet[1] | 0x80 : packet[1] & 0x7F
    }

    /// Sets SSRC, sequence number and timestamp, and the payload type when given, in one
    /// call: what an SFU does to every forwarded packet.
    public static func rewrite(
        _ packet: UnsafeMutableRawBufferPointer,
        ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadType: UInt8? = nil
    ) throws(WireError) {
        try requireFixedHeader(packet.count)
        if let payloadType { try setPayloadType(payloadType, in: packet) }
        packet.setUInt16(sequenceNumber, at: 2)
        packet.setUInt32(timestamp, at: 4)
        packet.setUInt32(ssrc, at: 8)
    }

    /// Overwrites the data of extension element `id` (which must already be present with
    /// exactly `value.count` bytes), e.g. a fresh transport-wide sequence number.
    /// - Returns: false if the packet has no such element or its size differs.
    @discardableResult
    public static func setExtension(
        id: UInt8, to value: some Collection<UInt8>, in packet: UnsafeMutableRawBufferPointer, header: RTPHeader
    ) throws(WireError) -> Bool {
        guard let range = try RTPHeaderExtensionWalker.find(id: id, in: UnsafeRawBufferPointer(packet), header: header),
              range.count == value.count else { return false }
        var position = range.lowerBound
        for byte in value {
            packet[position] = byte
            position += 1
        }
        return true
    }

    /// Writes a transport-wide sequence number into the existing element `id` without
    /// allocating. - Returns: false if the element is absent or shorter than 2 bytes.
    @discardableResult
    public static func setTransportSequenceNumber(
        _ value: UInt16, id: UInt8, in packet: UnsafeMutableRawBufferPointer, header: RTPHeader
    ) throws(WireError) -> Bool {
        guard let range = try RTPHeaderExtensionWalker.find(id: id, in: UnsafeRawBufferPointer(packet), header: header),
              range.count >= 2 else { return false }
        packet.setUInt16(value, at: range.lowerBound)
        return true
    }

    /// Writes a 24-bit abs-send-time into the existing element `id` without allocating.
    /// - Returns: false if the element is absent or not 3 bytes.
    @discardableResult
    public static func setAbsSendTime(
        _ value: UInt32, id: UInt8, in packet: UnsafeMutableRawBufferPointer, header: RTPHeader
    ) throws(WireError) -> Bool {
        guard let range = try RTPHeaderExtensionWalker.find(id: id, in: UnsafeRawBufferPointer(packet), header: header),
              range.count == 3 else { return false }
        packet[range.lowerBound] = UInt8(truncatingIfNeeded: value >> 16)
        packet[range.lowerBound + 1] = UInt8(truncatingIfNeeded: value >> 8)
        packet[range.lowerBound + 2] = UInt8(truncatingIfNeeded: value)
        return true
    }

    // MARK: [UInt8] conveniences

    public static func setSSRC(_ ssrc: UInt32, in packet: inout [UInt8]) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in try setSSRC(ssrc, in: bytes) }
    }

    public static func setSequenceNumber(_ sequenceNumber: UInt16, in packet: inout [UInt8]) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in try setSequenceNumber(sequenceNumber, in: bytes) }
    }

    public static func setTimestamp(_ timestamp: UInt32, in packet: inout [UInt8]) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in try setTimestamp(timestamp, in: bytes) }
    }

    public static func setPayloadType(_ payloadType: UInt8, in packet: inout [UInt8]) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in try setPayloadType(payloadType, in: bytes) }
    }

    public static func setMarker(_ marker: Bool, in packet: inout [UInt8]) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in try setMarker(marker, in: bytes) }
    }

    public static func rewrite(
        _ packet: inout [UInt8], ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadType: UInt8? = nil
    ) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in
            try rewrite(bytes, ssrc: ssrc, sequenceNumber: sequenceNumber, timestamp: timestamp, payloadType: payloadType)
        }
    }
}
