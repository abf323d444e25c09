/// One RTP packet for one viewer, in the viewer's numbering (RFC 3550 §5.1 fields), as
/// ``ViewerOutput/emit(_:)`` writes it: forwarded media, a retransmission, a filler
/// closing a hole, a loss announcement, or probe padding.
package struct OutgoingRTP {
    package var marker: Bool
    package var payloadType: UInt8
    package var sequence: UInt16
    package var timestamp: UInt32
    package var ssrc: UInt32
    /// The payload, copied into the datagram (it may be empty).
    package var payload: UnsafeRawBufferPointer
    /// RTP padding octets after the payload (0: none).
    package var padding: Int

    @inline(__always)
    package init(marker: Bool, payloadType: UInt8, sequence: UInt16, timestamp: UInt32, ssrc: UInt32,
                 payload: UnsafeRawBufferPointer, padding: Int = 0) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequence = sequence
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.payload = payload
        self.padding = padding
    }
}

extension OutgoingRTP {
    /// RFC 3550 §5.1 fixed header (no CSRCs; the X bit is set by the extensions written after).
    @inline(__always)
    package func writeFixedHeader(into slot: UnsafeMutableRawBufferPointer) {
        slot[0] = padding > 0 ? 0xA0 : 0x80
        slot[1] = (marker ? 0x80 : 0) | payloadType
        slot[2] = UInt8(truncatingIfNeeded: sequence >> 8)
        slot[3] = UInt8(truncatingIfNeeded: sequence)
        slot.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        slot.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
    }

    /// RFC 3550 §5.1 padding: `count` octets ending at `end`, the last of which counts them
    /// (itself included).
    @inline(__always)
    package static func writePadding(into slot: UnsafeMutableRawBufferPointer, count: Int, endingAt end: Int) {
        for index in (end - count)..<(end - 1) { slot[index] = 0 }
        slot[end - 1] = UInt8(count)
    }
}
