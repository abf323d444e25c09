import OnAirWire

/// The RTP header extensions the relay writes on what it sends a viewer, as that viewer
/// negotiated them: what the viewer's bandwidth estimation needs and nothing else.
///
/// - abs-send-time (libwebrtc's extension, 6.18 fixed-point seconds in 24 bits): the receiver
///   runs a delay-based estimator on it and sends REMB (aiortc does so only when it is present).
/// - transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2):
///   one counter over every packet to the viewer, so its transport-cc feedback lets the relay
///   run the estimator itself.
///
/// Written as an RFC 8285 §4.2 one-byte-header block right after the 12-byte fixed header.
public struct ViewerHeaderExtensions: Sendable {
    public let absoluteSendTimeID: UInt8?
    public let transportSequenceID: UInt8?
    /// The next transport-wide sequence number.
    public private(set) var nextTransportSequence: UInt16

    /// Ids outside 1...14 cannot be written in the one-byte form (RFC 8285 §4.2) and are left out.
    public init(absoluteSendTimeID: UInt8?, transportSequenceID: UInt8?, firstTransportSequence: UInt16 = 1) {
        self.absoluteSendTimeID = absoluteSendTimeID.flatMap { (1...14).contains($0) ? $0 : nil }
        self.transportSequenceID = transportSequenceID.flatMap { (1...14).contains($0) ? $0 : nil }
        nextTransportSequence = firstTransportSequence
    }

    /// Octets the block takes (0 when nothing is written): 4 for the block header plus the
    /// elements (4 for abs-send-time, 3 for the sequence number), padded to 32 bits.
    public var length: Int {
        let elements = (absoluteSendTimeID == nil ? 0 : 4) + (transportSequenceID == nil ? 0 : 3)
        return elements == 0 ? 0 : 4 + (elements + 3) / 4 * 4
    }

    /// Writes the block at offset 12 of `packet` (whose fixed header is written; this sets its
    /// X bit) and returns the transport-wide sequence number it used, if any.
    @inline(__always)
    public mutating func write(into packet: UnsafeMutableRawBufferPointer, now: MonoTime) -> UInt16? {
        let length = length
        guard length > 0 else { return nil }
        packet[0] |= 0x10
        packet[12] = 0xBE
        packet[13] = 0xDE
        let words = (length - 4) / 4
        packet[14] = UInt8(words >> 8)
        packet[15] = UInt8(words & 0xFF)
        var offset = 16
        if let id = absoluteSendTimeID {
            let time = Self.absoluteSendTime(now)
            packet[offset] = id << 4 | 2
            packet[offset + 1] = UInt8(truncatingIfNeeded: time >> 16)
            packet[offset + 2] = UInt8(truncatingIfNeeded: time >> 8)
            packet[offset + 3] = UInt8(truncatingIfNeeded: time)
            offset += 4
        }
        var used: UInt16?
        if let id = transportSequenceID {
            let sequence = nextTransportSequence
            nextTransportSequence &+= 1
            packet[offset] = id << 4 | 1
            packet[offset + 1] = UInt8(truncatingIfNeeded: sequence >> 8)
            packet[offset + 2] = UInt8(truncatingIfNeeded: sequence)
            offset += 3
            used = sequence
        }
        while offset < 12 + length {
            packet[offset] = 0
            offset += 1
        }
        return used
    }

    /// abs-send-time: seconds in 6.18 fixed point, wrapping every 64 s.
    @inline(__always)
    static func absoluteSendTime(_ now: MonoTime) -> UInt32 {
        let nanoseconds = now.nanoseconds % 64_000_000_000
        return UInt32(truncatingIfNeeded: (nanoseconds << 18) / 1_000_000_000) & 0xFF_FFFF
    }
}
