import FuzzSupport
import OnAirRTP
import OnAirWire

// fuzz-rtcp: one input is one (compound) RTCP datagram after SRTCP unprotect.
//
// Parses it (RFC 3550 §6.1 and App. A.2 validity checks, RFC 4585/5104 feedback, REMB,
// transport-cc) as values and in place (RTCPCompoundView, the relay's way in: what the value
// parser accepts, the view frames alike and reads the same fields from), then checks that every parsed packet reports its exact serialized size,
// that what we serialize parses again, and that serialization is then a fixed point.
//
// Not checked: parse(serialize(p)) == p. The parser is lenient where forwarding is harmless,
// and serializing normalises: e.g. an XR whose body, after RFC 3550 padding is removed, is
// not a multiple of 4 bytes is re-serialized with zero octets added (found by this fuzzer).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = FuzzInput(data, size).bytes
    let viewed = readInPlace(bytes)
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return 0 }
    fuzzCheck(viewed != nil, "the value parser accepts a compound whose framing the view refuses")
    checkSameReading(viewed ?? [:], packets)
    for packet in packets {
        let serialized = RTCPCompoundBuilder.serialize([packet])
        fuzzCheck(serialized.count == packet.serializedSize,
                  "\(packet): serializedSize \(packet.serializedSize) but \(serialized.count) bytes written")
        fuzzCheck(serialized.count % 4 == 0, "\(packet): \(serialized.count) bytes is not a multiple of 4")
        inspect(packet)
    }
    let compound = RTCPCompoundBuilder.serialize(packets)
    do {
        let again = try RTCPPacket.parseCompound(compound)
        fuzzCheck(RTCPCompoundBuilder.serialize(again) == compound, "serialize(parse(serialize(packets))) != serialize(packets)")
    } catch {
        fuzzCheck(false, "serialized packets do not parse: \(error)")
    }
    return 0
}

/// Derived values the relay computes from feedback.
private func inspect(_ packet: RTCPPacket) {
    switch packet {
    case .senderReport(let report):
        var statistics = RTPStreamStatistics(ssrc: report.ssrc)
        statistics.recordSenderReport(ntpTime: report.ntpTime, arrival: .seconds(1))
        statistics.record(sequenceNumber: 1, rtpTimestamp: report.rtpTimestamp, arrivalTime: 0)
        _ = statistics.makeReportBlock(now: .seconds(2))
    case .genericNACK(let nack):
        let lost = nack.lostSequenceNumbers
        _ = GenericNACK(senderSSRC: nack.senderSSRC, mediaSSRC: nack.mediaSSRC, lostSequenceNumbers: lost)
    case .transportWideFeedback(let feedback):
        _ = feedback.packets
        let arrivals = feedback.arrivalTimesMicroseconds
        _ = try? TransportWideFeedback(senderSSRC: feedback.senderSSRC, mediaSSRC: feedback.mediaSSRC,
                                       baseSequenceNumber: feedback.baseSequenceNumber,
                                       feedbackPacketCount: feedback.feedbackPacketCount,
                                       arrivalTimesMicroseconds: arrivals)
    case .remb(let remb):
        _ = remb.exponentAndMantissa
    default:
        _ = packet.message
    }
}

/// The relay's way in (``RTCPCompoundView``): every field it acts on, read in place; nil when
/// the framing is refused.
private func readInPlace(_ bytes: [UInt8]) -> [RTCPPacketView.Kind: [String]]? {
    bytes.withUnsafeBytes { raw -> [RTCPPacketView.Kind: [String]]? in
        guard let compound = try? RTCPCompoundView(raw) else { return nil }
        var read: [RTCPPacketView.Kind: [String]] = [:]
        for item in compound {
            var fields = "\(item.mediaSSRC as Any)"
            switch item.kind {
            case .senderReport:
                fields = "\(item.senderReport as Any) \(item.reportBlocks.map(Array.init) as Any)"
            case .receiverReport: fields = "\(item.reportBlocks.map(Array.init) as Any)"
            case .genericNACK: fields += " \(item.nackItems.map(Array.init) as Any)"
            case .remb: fields = "\(item.rembBitrate as Any)"
            case .transportFeedback:
                var deltas: [Int16?] = []
                item.transportFeedback?.forEachPacket { _, delta in deltas.append(delta) }
                fields = "\(item.transportFeedback?.referenceTime as Any) \(deltas)"
            default: break
            }
            read[item.kind, default: []].append(fields)
        }
        return read
    }
}

/// What the view read matches the values for the packets the relay acts on.
private func checkSameReading(_ viewed: [RTCPPacketView.Kind: [String]], _ packets: [RTCPPacket]) {
    var expected: [RTCPPacketView.Kind: [String]] = [:]
    for packet in packets {
        switch packet {
        case .senderReport(var sr):
            let blocks = sr.reportBlocks
            sr.reportBlocks = []
            sr.profileExtension = []
            expected[.senderReport, default: []].append("\(Optional(sr) as Any) \(Optional(blocks) as Any)")
        case .receiverReport(let rr): expected[.receiverReport, default: []].append("\(Optional(rr.reportBlocks) as Any)")
        case .genericNACK(let nack):
            expected[.genericNACK, default: []].append("\(Optional(nack.mediaSSRC) as Any) \(Optional(nack.items) as Any)")
        case .remb(let remb): expected[.remb, default: []].append("\(Optional(remb.bitrate) as Any)")
        case .transportWideFeedback(let twcc):
            expected[.transportFeedback, default: []].append("\(Optional(twcc.referenceTime) as Any) \(twcc.receiveDeltas)")
        default: break
        }
    }
    for kind in [RTCPPacketView.Kind.senderReport, .receiverReport, .genericNACK, .remb, .transportFeedback] {
        fuzzCheck(viewed[kind, default: []] == expected[kind, default: []],
                  "\(kind): read in place \(viewed[kind, default: []]), parsed \(expected[kind, default: []])")
    }
}
