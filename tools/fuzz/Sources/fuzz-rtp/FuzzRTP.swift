import FuzzSupport
import OnAirPayload
import OnAirRTP
import OnAirWire

// fuzz-rtp: one input is one RTP packet (after SRTP unprotect, as the relay sees it).
//
// Exercises the header parsers (RFC 3550 §5.1: the forwarding path's RTPPacketView, checked
// against the general RTPHeader), the RFC 8285 extension walker, RTX (RFC 4588 §4)
// wrap/unwrap, the in-place field rewriters, the retransmission cache and receiver statistics, the H.264 payload
// inspection of the forwarding path (keyframe start, the SPS a layer's size is read from,
// RFC 6184 §5.7.1 STAP-A walked), the upstream NACK generator, and checks that
// what they produce is consistent with what they were given.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let packet = FuzzInput(data, size).bytes
    let fromBuffer = packet.withUnsafeBytes { try? RTPHeader(parsing: $0) }
    let view = packet.withUnsafeBytes { RTPPacketView($0) }
    guard let header = try? RTPHeader(parsing: packet) else {
        fuzzCheck(fromBuffer == nil, "array and buffer parsers disagree")
        fuzzCheck(view == nil, "the forwarding view read a packet the header parser refused")
        _ = try? RTX.unwrap(packet, originalSSRC: 1, originalPayloadType: 96)
        return 0
    }
    fuzzCheck(fromBuffer == header, "array and buffer parsers disagree")
    checkView(view, packet, header: header)
    fuzzCheck(header.payloadOffset + header.payloadLength + header.paddingLength == packet.count,
              "header, payload and padding do not add up to the packet")
    fuzzCheck(header.extensionDataRange.upperBound <= header.payloadOffset, "extension overlaps the payload")

    let elements = (try? header.extensionElements(in: packet)) ?? nil
    for element in elements ?? [] {
        _ = try? WellKnownHeaderExtensions.decodeAbsSendTime(element.data)
        _ = try? WellKnownHeaderExtensions.decodeTransportSequenceNumber(element.data)
        _ = try? WellKnownHeaderExtensions.decodeMID(element.data)
        _ = try? WellKnownHeaderExtensions.decodeAudioLevel(element.data)
        let found = try? header.extensionElement(id: element.id, in: packet)
        fuzzCheck(found != nil, "element \(element.id) was walked but not found")
    }
    walkArbitraryRanges(packet, header: header)
    checkRTX(packet, header: header)
    checkFieldRewriters(packet, header: header)

    var cache = RTPPacketCache(capacity: 4, maxPacketSize: 1500)
    if cache.store(packet, sequenceNumber: header.sequenceNumber) {
        fuzzCheck(cache.packet(sequenceNumber: header.sequenceNumber) == packet, "cache returned other bytes")
    }
    packet.withUnsafeBytes { bytes in
        let payload = UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange])
        _ = H264Keyframe.role(of: payload)
        if let sps = H264Keyframe.sequenceParameterSet(in: payload) {
            fuzzCheck(sps.width > 0 && sps.height > 0, "an SPS without a picture size")
        }
    }
    checkNACKGenerator(packet)
    var statistics = RTPStreamStatistics(ssrc: header.ssrc)
    statistics.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrivalTime: 0)
    statistics.record(sequenceNumber: header.sequenceNumber &+ 1, rtpTimestamp: header.timestamp &+ 3000, arrivalTime: 100)
    _ = statistics.makeReportBlock(now: .seconds(1))
    return 0
}

/// The walker takes a caller's range: hostile ranges must throw, not trap.
private func walkArbitraryRanges(_ packet: [UInt8], header: RTPHeader) {
    packet.withUnsafeBytes { bytes in
        let lower = packet.count > 12 ? min(Int(packet[12]), packet.count) : 0
        for range in [0..<packet.count, lower..<packet.count, 12..<(packet.count + 4)] {
            for form in [RTPHeaderExtensionForm.oneByte, .twoByte(appBits: 0)] {
                try? RTPHeaderExtensionWalker.forEach(in: bytes, form: form, dataRange: range) { _, data in
                    fuzzCheck(data.lowerBound >= range.lowerBound && data.upperBound <= range.upperBound,
                              "walker returned \(data) outside \(range)")
                    return true
                }
            }
        }
        _ = try? RTPHeaderExtensionWalker.find(id: 1, in: bytes, header: header)
    }
}

/// RFC 4588 §4: unwrap(wrap(p)) is p without its padding.
private func checkRTX(_ packet: [UInt8], header: RTPHeader) {
    _ = try? RTX.unwrap(packet, originalSSRC: 0x1234_5678, originalPayloadType: 96)
    guard let wrapped = try? RTX.wrap(packet, rtxSSRC: 0xCAFE_F00D, rtxPayloadType: 97, rtxSequenceNumber: 7) else {
        fuzzCheck(false, "RTX.wrap threw on a packet that parses"); return
    }
    let unwrapped = try? RTX.unwrap(wrapped, originalSSRC: header.ssrc, originalPayloadType: header.payloadType)
    var expected = Array(packet[0..<(header.payloadOffset + header.payloadLength)])
    expected[0] &= ~0x20
    fuzzCheck(unwrapped == expected, "RTX unwrap(wrap(p)) != p without padding")
    // The forwarding path's unwrap reads the RTX packet's view and returns the original's.
    guard let view = wrapped.withUnsafeBytes({ RTPPacketView($0) }) else {
        fuzzCheck(false, "the view refused an RTX packet RTX.wrap made"); return
    }
    var output = [UInt8](repeating: 0, count: wrapped.count)
    let original = wrapped.withUnsafeBytes { input in
        output.withUnsafeMutableBytes { out in
            try? RTX.unwrap(input, view: view, originalSSRC: header.ssrc, originalPayloadType: header.payloadType, into: out)
        }
    }
    guard let original else { fuzzCheck(false, "the view-based RTX unwrap threw where the other did not"); return }
    let written = Array(output[0..<original.payloadRange.upperBound])
    fuzzCheck(written == expected, "the view-based RTX unwrap wrote another packet")
    fuzzCheck(written.withUnsafeBytes { RTPPacketView($0) } == original, "the returned view is not the view of what was written")
}

private func checkFieldRewriters(_ packet: [UInt8], header: RTPHeader) {
    var copy = packet
    copy.withUnsafeMutableBytes { bytes in
        for id: UInt8 in [1, 3, 5, 200] {
            _ = try? RTPPacketRewriter.setTransportSequenceNumber(0xBEEF, id: id, in: bytes, header: header)
            _ = try? RTPPacketRewriter.setAbsSendTime(0xABCDEF, id: id, in: bytes, header: header)
            _ = try? RTPPacketRewriter.setExtension(id: id, to: [1, 2], in: bytes, header: header)
        }
    }
    try? RTPPacketRewriter.rewrite(&copy, ssrc: 1, sequenceNumber: 2, timestamp: 3, payloadType: 100)
    try? RTPPacketRewriter.setMarker(true, in: &copy)
    let after = try? RTPHeader(parsing: copy)
    fuzzCheck(after?.payloadRange == header.payloadRange && after?.extensionDataRange == header.extensionDataRange,
              "field rewriters changed the packet layout")
}

/// The upstream gap finder on hostile sequence numbers (the packet's bytes, two at a time):
/// it must neither trap nor hold more than its limit, and what it asks for must be missing.
private func checkNACKGenerator(_ packet: [UInt8]) {
    var generator = NACKGenerator()
    var due: [UInt16] = [], givenUp: [UInt16] = []
    var now = MonoTime.seconds(1)
    var index = 0
    while index + 1 < packet.count {
        _ = generator.received(UInt16(packet[index]) << 8 | UInt16(packet[index + 1]), now: now)
        fuzzCheck(generator.missingCount <= generator.settings.maximumMissing, "more missing than the limit")
        now = now + .milliseconds(Int(packet[index]) % 50)
        generator.poll(now: now, into: &due, givenUp: &givenUp)
        index += 2
    }
}

/// The forwarding path's view reads what the general parser reads, elements included; read
/// as SRTP reads it (the header first, the padding once the payload is plain), the same.
private func checkView(_ view: RTPPacketView?, _ packet: [UInt8], header: RTPHeader) {
    guard let view else {
        fuzzCheck(false, "the forwarding view refused a packet the header parser read")
        return
    }
    packet.withUnsafeBytes { raw in
        var inTwoSteps = RTPPacketView(header: raw)
        fuzzCheck(inTwoSteps?.removePadding(in: raw) == true && inTwoSteps == view, "header view plus padding differs from the view")
    }
    fuzzCheck(view.payloadType == header.payloadType && view.marker == header.marker && view.sequence == header.sequenceNumber
              && view.timestamp == header.timestamp && view.ssrc == header.ssrc, "view and header read other fields")
    fuzzCheck(view.payloadRange == header.payloadRange, "view payload \(view.payloadRange), header \(header.payloadRange)")
    fuzzCheck(view.extensionForm == header.extensionForm, "view and header read other extension forms")
    guard view.extensionForm != nil else { return }
    fuzzCheck(view.extensionDataRange == header.extensionDataRange, "view and header read other extension blocks")
    packet.withUnsafeBytes { bytes in
        for id in UInt8(1)...15 {
            let expected = try? RTPHeaderExtensionWalker.find(id: id, in: bytes, header: header)
            fuzzCheck(view.extensionElement(id: id, in: bytes) == (expected ?? nil), "element \(id) found elsewhere by the view")
        }
    }
}
