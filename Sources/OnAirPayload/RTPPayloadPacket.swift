import OnAirRTP
import OnAirWire

/// What a payload format reads from an RTP packet (RFC 3550 §5.1): the sequence number
/// (to order packets and find losses), the timestamp (which access unit or audio frame),
/// the marker bit and the payload. The payload is a slice of the caller's packet buffer:
/// nothing is copied to build one.
public struct RTPPayloadPacket: Hashable, Sendable {
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    public var payload: ArraySlice<UInt8>

    public init(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: ArraySlice<UInt8>) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.marker = marker
        self.payload = payload
    }

    public init(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8]) {
        self.init(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: payload[...])
    }

    /// The fields of a whole RTP packet (after SRTP unprotect); padding is excluded from
    /// the payload.
    public init(parsing packet: [UInt8]) throws(WireError) {
        let header = try RTPHeader(parsing: packet)
        self.init(sequenceNumber: header.sequenceNumber, timestamp: header.timestamp,
                  marker: header.marker, payload: packet[header.payloadRange])
    }
}
