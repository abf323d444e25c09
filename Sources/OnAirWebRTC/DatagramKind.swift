/// The protocol a datagram on the shared media port belongs to, from its first byte
/// (RFC 7983 §7) and, for RTP versus RTCP on a muxed port, its second (RFC 5761 §4).
public enum DatagramKind: Sendable, Equatable {
    case stun
    case dtls
    case rtp
    case rtcp
    /// ZRTP, TURN channels and anything else: dropped.
    case unknown

    /// Classifies by the first two bytes; `second` is ignored unless the first says RTP/RTCP.
    @inline(__always)
    public static func classify(first: UInt8, second: UInt8) -> DatagramKind {
        switch first {
        case 0...3: return .stun
        case 20...63: return .dtls
        case 128...191:
            // RFC 5761 §4: RTCP packet types 192-223 occupy the RTP marker+PT byte values
            // that RTP must not use when muxed.
            return (192...223).contains(second) ? .rtcp : .rtp
        default: return .unknown
        }
    }

    public static func classify(_ datagram: [UInt8]) -> DatagramKind {
        guard datagram.count >= 2 else { return .unknown }
        return classify(first: datagram[0], second: datagram[1])
    }

    @inline(__always)
    public static func classify(_ datagram: UnsafeRawBufferPointer) -> DatagramKind {
        guard datagram.count >= 2 else { return .unknown }
        return classify(first: datagram[0], second: datagram[1])
    }
}
