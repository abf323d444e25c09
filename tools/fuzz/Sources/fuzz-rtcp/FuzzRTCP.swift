import FuzzSupport
import OnAirRTP
import OnAirWire

// fuzz-rtcp: one input is one (compound) RTCP datagram after SRTCP unprotect.
//
// Parses it (RFC 3550 §6.1 and App. A.2 validity checks, RFC 4585/5104 feedback, REMB,
// transport-cc), then checks that every parsed packet reports its exact serialized size,
// that what we serialize parses again, and that serialization is then a fixed point.
//
// Not checked: parse(serialize(p)) == p. The parser is lenient where forwarding is harmless,
// and serializing normalises: e.g. an XR whose body, after RFC 3550 padding is removed, is
// not a multiple of 4 bytes is re-serialized with zero octets added (found by this fuzzer).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = FuzzInput(data, size).bytes
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return 0 }
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
