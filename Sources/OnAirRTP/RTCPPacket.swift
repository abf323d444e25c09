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
        guard !bytes.isEmpty else { throw .invalid("empty RTCP packet") }
        var reader = ByteReader(bytes)
        var packets: [RTCPPacket] = []
        while !reader.isAtEnd {
            let start = reader.offset
            let header = try RTCPHeader(parsing: &reader)
            let bodySize = header.packetSize - RTCPHeader.size
            guard reader.remaining >= bodySize else {
                throw .invalid("RTCP packet type \(header.packetType) claims \(header.packetSize) bytes, only \(reader.remaining + RTCPHeader.size) left in the compound packet")
            }
            var body = try reader.subReader(bodySize)
            if header.hasPadding {
                let padding = bodySize > 0 ? Int(bytes[start + header.packetSize - 1]) : 0
                guard padding >= 1, padding <= bodySize else {
                    throw .invalid("RTCP padding count \(padding) does not fit a \(bodySize)-byte packet body")
                }
                body = ByteReader(bytes, from: body.offset, to: body.end - padding)
            }
            packets.append(try parse(header: header, body: body, bytes: bytes, range: start..<reader.offset))
        }
        return packets
    }

    private static func parse(
        header: RTCPHeader, body: ByteReader, bytes: [UInt8], range: Range<Int>
    ) throws(WireError) -> RTCPPacket {
        switch (header.packetType, header.count) {
        case (RTCPPacketType.senderReport, _):
            return .senderReport(try SenderReport(header: header, body: body))
        case (RTCPPacketType.receiverReport, _):
            return .receiverReport(try ReceiverReport(header: header, body: body))
        case (RTCPPacketType.sourceDescription, _):
            return .sourceDescription(try SourceDescription(header: header, body: body))
        case (RTCPPacketType.goodbye, _):
            return .goodbye(try Goodbye(header: header, body: body))
        case (RTCPPacketType.applicationDefined, _):
            return .applicationDefined(try ApplicationDefined(header: header, body: body))
        case (RTCPPacketType.extendedReport, _):
            return .extendedReport(try ExtendedReport(header: header, body: body))
        case (RTCPPacketType.transportFeedback, RTCPPacketType.genericNACKFormat):
            return .genericNACK(try GenericNACK(header: header, body: body))
        case (RTCPPacketType.transportFeedback, RTCPPacketType.transportWideCCFormat):
            return .transportWideFeedback(try TransportWideFeedback(header: header, body: body))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.pictureLossFormat):
            return .pictureLossIndication(try PictureLossIndication(header: header, body: body))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.fullIntraRequestFormat):
            return .fullIntraRequest(try FullIntraRequest(header: header, body: body))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.applicationLayerFeedbackFormat)
            where REMB.matches(body):
            return .remb(try REMB(header: header, body: body))
        default:
            return .unknown(type: header.packetType, bytes: Array(bytes[range]))
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
