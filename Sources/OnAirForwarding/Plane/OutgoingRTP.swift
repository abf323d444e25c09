/// One RTP packet for one viewer, in the viewer's numbering (RFC 3550 §5.1 fields), as
/// ``Room/emit(_:to:at:sender:now:)`` writes it: forwarded media, a retransmission, a filler
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
