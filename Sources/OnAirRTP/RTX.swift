import OnAirWire

/// RFC 4588 §4 RTP retransmission payload format (session multiplexing, as WebRTC uses
/// it): the retransmission carries the original header fields except SSRC, payload type
/// and sequence number, and its payload starts with the 2-byte original sequence number
/// (OSN) followed by the original payload.
public enum RTX {
    /// The original sequence number of an RTX packet.
    public static func originalSequenceNumber(
        of packet: UnsafeRawBufferPointer, header: RTPHeader
    ) throws(WireError) -> UInt16 {
        guard header.payloadLength >= 2, header.payloadOffset + 2 <= packet.count else {
            throw .invalid("RTX packet has no original sequence number (payload of \(header.payloadLength) bytes)")
        }
        return packet.uint16(at: header.payloadOffset)
    }

    /// Builds the original packet from an RTX packet into `output`: header with the
    /// original SSRC, payload type and sequence number (CSRCs and extensions kept), then
    /// the payload after the OSN. RTX padding is dropped.
    /// - Returns: the number of bytes written (`header.payloadOffset + payloadLength - 2`).
    public static func unwrap(
        _ packet: UnsafeRawBufferPointer, header: RTPHeader,
        originalSSRC: UInt32, originalPayloadType: UInt8,
        into output: UnsafeMutableRawBufferPointer
    ) throws(WireError) -> Int {
        let osn = try originalSequenceNumber(of: packet, header: header)
        return try unwrap(packet, headerSize: header.payloadOffset, payloadLength: header.payloadLength, osn: osn,
                          timestamp: header.timestamp, originalSSRC: originalSSRC, originalPayloadType: originalPayloadType,
                          into: output)
    }

    /// ``unwrap(_:header:originalSSRC:originalPayloadType:into:)`` of a packet the caller has
    /// a view of (the relay's forwarding path): returns the original's view, read from the
    /// RTX packet's rather than from the bytes written.
    @inline(__always)
    public static func unwrap(
        _ packet: UnsafeRawBufferPointer, view: RTPPacketView,
        originalSSRC: UInt32, originalPayloadType: UInt8,
        into output: UnsafeMutableRawBufferPointer
    ) throws(WireError) -> RTPPacketView {
        guard view.payloadRange.count >= 2 else {
            throw .invalid("RTX packet has no original sequence number (payload of \(view.payloadRange.count) bytes)")
        }
        let osn = packet.uint16(at: view.headerLength)
        let total = try unwrap(packet, headerSize: view.headerLength, payloadLength: view.payloadRange.count, osn: osn,
                               timestamp: view.timestamp, originalSSRC: originalSSRC, originalPayloadType: originalPayloadType,
                               into: output)
        var original = view
        original.sequence = osn
        original.ssrc = originalSSRC
        original.payloadType = originalPayloadType & 0x7F
        original.payloadRange = view.headerLength..<total
        return original
    }

    private static func unwrap(
        _ packet: UnsafeRawBufferPointer, headerSize: Int, payloadLength: Int, osn: UInt16, timestamp: UInt32,
        originalSSRC: UInt32, originalPayloadType: UInt8, into output: UnsafeMutableRawBufferPointer
    ) throws(WireError) -> Int {
        guard headerSize + payloadLength <= packet.count else {
            throw .invalid("RTP header does not belong to this \(packet.count)-byte packet")
        }
        let total = headerSize + payloadLength - 2
        guard output.count >= total else {
            throw .invalid("output buffer of \(output.count) bytes cannot hold the \(total)-byte original packet")
        }
        output.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[0..<headerSize]))
        let payloadStart = headerSize + 2
        UnsafeMutableRawBufferPointer(rebasing: output[headerSize..<total])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[payloadStart..<(payloadStart + total - headerSize)]))
        output[0] &= ~0x20
        try RTPPacketRewriter.rewrite(output, ssrc: originalSSRC, sequenceNumber: osn, timestamp: timestamp,
                                      payloadType: originalPayloadType & 0x7F)
        return total
    }

    /// Builds the RTX packet for an original packet into `output`: the original header
    /// with the RTX SSRC, payload type and sequence number, the OSN, then the original
    /// payload. The original's padding is dropped.
    /// - Returns: the number of bytes written (`header.payloadOffset + 2 + payloadLength`).
    public static func wrap(
        _ packet: UnsafeRawBufferPointer, header: RTPHeader,
        rtxSSRC: UInt32, rtxPayloadType: UInt8, rtxSequenceNumber: UInt16,
        into output: UnsafeMutableRawBufferPointer
    ) throws(WireError) -> Int {
        let headerSize = header.payloadOffset
        guard headerSize + header.payloadLength <= packet.count else {
            throw .invalid("RTP header does not belong to this \(packet.count)-byte packet")
        }
        let total = headerSize + 2 + header.payloadLength
        guard output.count >= total else {
            throw .invalid("output buffer of \(output.count) bytes cannot hold the \(total)-byte RTX packet")
        }
        output.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[0..<headerSize]))
        output.setUInt16(header.sequenceNumber, at: headerSize)
        UnsafeMutableRawBufferPointer(rebasing: output[(headerSize + 2)..<total])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[header.payloadRange]))
        output[0] &= ~0x20
        try RTPPacketRewriter.rewrite(output, ssrc: rtxSSRC, sequenceNumber: rtxSequenceNumber,
                                      timestamp: header.timestamp, payloadType: rtxPayloadType & 0x7F)
        return total
    }

    public static func unwrap(_ packet: [UInt8], originalSSRC: UInt32, originalPayloadType: UInt8) throws(WireError) -> [UInt8] {
        let header = try RTPHeader(parsing: packet)
        var output = [UInt8](repeating: 0, count: packet.count)
        let written = try packet.withWireBytes { input throws(WireError) in
            try output.withMutableWireBytes { out throws(WireError) in
                try unwrap(input, header: header, originalSSRC: originalSSRC,
                           originalPayloadType: originalPayloadType, into: out)
            }
        }
        output.removeLast(output.count - written)
        return output
    }

    public static func wrap(
        _ packet: [UInt8], rtxSSRC: UInt32, rtxPayloadType: UInt8, rtxSequenceNumber: UInt16
    ) throws(WireError) -> [UInt8] {
        let header = try RTPHeader(parsing: packet)
        var output = [UInt8](repeating: 0, count: header.payloadOffset + 2 + header.payloadLength)
        _ = try packet.withWireBytes { input throws(WireError) in
            try output.withMutableWireBytes { out throws(WireError) in
                try wrap(input, header: header, rtxSSRC: rtxSSRC, rtxPayloadType: rtxPayloadType,
                         rtxSequenceNumber: rtxSequenceNumber, into: out)
            }
        }
        return output
    }
}
