import OnAirWire

/// One packet of a compound RTCP packet, read in place (``RTCPCompoundView``): its type and
/// the fields the relay acts on, each checked against the packet's length when read (nil
/// when the packet is too short for it). Nothing here allocates.
public struct RTCPPacketView {
    /// What the relay tells apart (RFC 3550 §6.4, RFC 4585 §6, RFC 5104 §4.3.1, REMB,
    /// transport-cc).
    public enum Kind: Equatable, Sendable {
        case senderReport, receiverReport, genericNACK, transportFeedback, pictureLoss, fullIntraRequest, remb, other
    }

    /// The whole compound packet; this packet is `bytes[start..<end]`, its body (after the
    /// 4-byte header, padding removed) `bytes[start + 4..<bodyEnd]`.
    let bytes: UnsafeRawBufferPointer
    public let start: Int
    public let end: Int
    public let bodyEnd: Int

    /// RC / SC / FMT / subtype.
    public var count: UInt8 { bytes[start] & 0x1F }
    public var packetType: UInt8 { bytes[start + 1] }
    public var bodyStart: Int { start + RTCPHeader.size }
    public var body: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<bodyEnd]) }

    public var kind: Kind {
        switch (packetType, count) {
        case (RTCPPacketType.senderReport, _): return .senderReport
        case (RTCPPacketType.receiverReport, _): return .receiverReport
        case (RTCPPacketType.transportFeedback, RTCPPacketType.genericNACKFormat): return .genericNACK
        case (RTCPPacketType.transportFeedback, RTCPPacketType.transportWideCCFormat): return .transportFeedback
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.pictureLossFormat): return .pictureLoss
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.fullIntraRequestFormat): return .fullIntraRequest
        case (RTCPPacketType.payloadSpecificFeedback, RTCPPacketType.applicationLayerFeedbackFormat):
            return REMB.matches(body) ? .remb : .other
        default: return .other
        }
    }

    /// An SR's sender information (RFC 3550 §6.4.1), without its report blocks (``reportBlocks``).
    public var senderReport: SenderReport? {
        let body = body
        guard packetType == RTCPPacketType.senderReport, body.count >= 24 + ReportBlock.size * Int(count) else { return nil }
        return SenderReport(ssrc: body.uint32(at: 0),
                            ntpTime: NTPTime(rawValue: UInt64(body.uint32(at: 4)) << 32 | UInt64(body.uint32(at: 8))),
                            rtpTimestamp: body.uint32(at: 12), packetCount: body.uint32(at: 16), octetCount: body.uint32(at: 20))
    }

    /// The report blocks of an SR or RR (RFC 3550 §6.4.1, §6.4.2); nil for another packet or
    /// one shorter than its report count says.
    public var reportBlocks: ReportBlocks? {
        let first: Int
        switch packetType {
        case RTCPPacketType.senderReport: first = 24
        case RTCPPacketType.receiverReport: first = 4
        default: return nil
        }
        let body = body
        guard body.count >= first + ReportBlock.size * Int(count) else { return nil }
        return ReportBlocks(bytes: UnsafeRawBufferPointer(rebasing: body[first..<(first + ReportBlock.size * Int(count))]))
    }

    /// The SSRC a feedback message is about (RFC 4585 §6.1).
    public var mediaSSRC: UInt32? { body.count >= 8 ? body.uint32(at: 4) : nil }

    /// A Generic NACK's FCI entries (RFC 4585 §6.2.1); nil when it is malformed.
    public var nackItems: NACKItems? {
        let body = body
        guard kind == .genericNACK, body.count >= 8, (body.count - 8) % 4 == 0 else { return nil }
        return NACKItems(bytes: UnsafeRawBufferPointer(rebasing: body[8...]))
    }

    /// A REMB's bitrate (draft-alvestrand-rmcat-remb-03 §2.2); nil when it is malformed.
    public var rembBitrate: UInt64? {
        let body = body
        guard kind == .remb, body.count >= 16 else { return nil }
        guard body.count >= 16 + 4 * Int(body[12]) else { return nil }
        return REMB.decodeBitrate(UInt32(body[13]) << 16 | UInt32(body.uint16(at: 14)))
    }

    /// transport-cc feedback, checked whole; nil when it is malformed.
    public var transportFeedback: TransportFeedbackView? {
        guard kind == .transportFeedback else { return nil }
        return try? TransportFeedbackView(body)
    }

    /// Report blocks in place.
    public struct ReportBlocks: Sequence {
        let bytes: UnsafeRawBufferPointer
        public var count: Int { bytes.count / ReportBlock.size }

        public struct Iterator: IteratorProtocol {
            let bytes: UnsafeRawBufferPointer
            var offset = 0
            public mutating func next() -> ReportBlock? {
                guard offset + ReportBlock.size <= bytes.count else { return nil }
                defer { offset += ReportBlock.size }
                return ReportBlock(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + ReportBlock.size)]))
            }
        }

        public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
    }

    /// Generic NACK entries in place: each a PID and the bitmask of the 16 after it.
    public struct NACKItems: Sequence {
        let bytes: UnsafeRawBufferPointer

        public struct Iterator: IteratorProtocol {
            let bytes: UnsafeRawBufferPointer
            var offset = 0
            public mutating func next() -> GenericNACK.Item? {
                guard offset + 4 <= bytes.count else { return nil }
                defer { offset += 4 }
                return GenericNACK.Item(packetID: bytes.uint16(at: offset), lostBitmask: bytes.uint16(at: offset + 2))
            }
        }

        public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
    }
}
