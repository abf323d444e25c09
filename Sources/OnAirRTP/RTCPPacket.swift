import OnAirWire

/// One RTCP packet of a compound packet (RFC 3550 §6.1), RTCP feedback (RFC 4585,
/// RFC 5104) and the congestion control messages WebRTC uses.
public enum RTCPPacket: Sendable, Hashable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case applicationDefined(ApplicationDefined)
    case extendedReport(ExtendedReport)
    case genericNACK(GenericNACK)
    case transportWideFeedback(TransportWideFeedback)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case remb(REMB)
    /// A packet type (or feedback FMT) this module does not parse: its type and the
    /// whole packet, header included, so it can be forwarded verbatim.
    case unknown(type: UInt8, bytes: [UInt8])

    /// Parses a compound RTCP packet (RFC 3550 §6.1, validity checks of App. A.2): every
    /// packet must have version 2, its length must fit, padding must be consistent, and
    /// the lengths must add up to exactly the datagram. Reduced-size RTCP (RFC 5506) is
    /// accepted, so the first packet need not be SR or RR.
    public static func parseCompound(_ bytes: [UInt8]) throws(WireError) -> [RTCPPacket] {
        try bytes.withWireBytes { raw throws(WireError) in
            var packets: [RTCPPacket] = []
            for view in try RTCPCompoundView(raw) {
                packets.append(try parse(view, bytes: bytes))
            }
            return packets
        }
    }

    private static func parse(_ view: RTCPPacketView, bytes: [UInt8]) throws(WireError) -> RTCPPacket {
        let header = RTCPHeader(hasPadding: bytes[view.start] & 0x20 != 0, count: view.count, packetType: view.packetType,
                                length: UInt16(truncatingIfNeeded: (view.end - view.start) / 4 - 1))
        let body = ByteReader(bytes, from: view.bodyStart, to: view.bodyEnd)
        switch view.kind {
        case .senderReport: return .senderReport(try SenderReport(header: header, body: body))
        case .receiverReport: return .receiverReport(try ReceiverReport(header: header, body: body))
        case .genericNACK: return .genericNACK(try GenericNACK(header: header, body: body))
        case .transportFeedback: return .transportWideFeedback(try TransportWideFeedback(header: header, body: body))
        case .pictureLoss: return .pictureLossIndication(try PictureLossIndication(header: header, body: body))
        case .fullIntraRequest: return .fullIntraRequest(try FullIntraRequest(header: header, body: body))
        case .remb: return .remb(try REMB(header: header, body: body))
        case .other: break
        }
        switch view.packetType {
        case RTCPPacketType.sourceDescription: return .sourceDescription(try SourceDescription(header: header, body: body))
        case RTCPPacketType.goodbye: return .goodbye(try Goodbye(header: header, body: body))
        case RTCPPacketType.applicationDefined: return .applicationDefined(try ApplicationDefined(header: header, body: body))
        case RTCPPacketType.extendedReport: return .extendedReport(try ExtendedReport(header: header, body: body))
        default: return .unknown(type: view.packetType, bytes: Array(bytes[view.start..<view.end]))
        }
    }

    /// The packet's message, or nil for `.unknown`.
    public var message: (any RTCPMessage)? {
        switch self {
        case .senderReport(let m): return m
        case .receiverReport(let m): return m
        case .sourceDescription(let m): return m
        case .goodbye(let m): return m
        case .applicationDefined(let m): return m
        case .extendedReport(let m): return m
        case .genericNACK(let m): return m
        case .transportWideFeedback(let m): return m
        case .pictureLossIndication(let m): return m
        case .fullIntraRequest(let m): return m
        case .remb(let m): return m
        case .unknown: return nil
        }
    }

    /// Exact bytes on the wire.
    public var serializedSize: Int {
        if case .unknown(_, let bytes) = self { return bytes.count }
        return message?.serializedSize ?? 0
    }

    public func serialize(into writer: inout ByteWriter) {
        if case .unknown(_, let bytes) = self {
            writer.write(contentsOf: bytes)
        } else {
            message?.serialize(into: &writer)
        }
    }
}
