import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("RTP packet building and in-place rewriting")
struct RTPPacketTests {
    @Test func builderWritesExactBytes() throws {
        let block = try RTPHeaderExtensionBlock(elements: [RTPHeaderExtensionElement(id: 1, data: [0xAA])])
        let builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 100, ssrc: 0x1122_3344,
                                       marker: true, csrcs: [0x5555_5555], extensionBlock: block, paddingLength: 3)
        let packet = builder.build(payload: [0xDE, 0xAD])
        #expect(packet == hex("b1 e0 00 01 00 00 00 64 11 22 33 44 55 55 55 55 be de 00 01 10 aa 00 00 de ad 00 00 03"))
        #expect(builder.headerSize == 24)
        #expect(builder.serializedSize(payloadCount: 2) == packet.count)
    }

    @Test func builderRoundTripsThroughParser() throws {
        let block = try RTPHeaderExtensionBlock(elements: [
            RTPHeaderExtensionElement(id: 2, data: [1, 2, 3]),
            RTPHeaderExtensionElement(id: 40, data: [9]),
        ])
        let builder = RTPPacketBuilder(payloadType: 111, sequenceNumber: 0xFFFF, timestamp: 0xFFFF_FFFF, ssrc: 7,
                                       csrcs: [1, 2, 3], extensionBlock: block)
        let payload: [UInt8] = Array(0..<200)
        let packet = builder.build(payload: payload)
        let header = try RTPHeader(parsing: packet)
        #expect(header.payloadType == 111 && header.sequenceNumber == 0xFFFF && header.timestamp == 0xFFFF_FFFF)
        #expect(header.ssrc == 7 && header.csrcs == [1, 2, 3] && !header.marker)
        #expect(header.extensionForm == .twoByte(appBits: 0))
        #expect(try header.extensionElements(in: packet) == [
            RTPHeaderExtensionElement(id: 2, data: [1, 2, 3]),
            RTPHeaderExtensionElement(id: 40, data: [9]),
        ])
        #expect(Array(packet[header.payloadRange]) == payload)
    }

    @Test func writeIntoBufferMatchesBuild() throws {
        let builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: 9, timestamp: 90_000, ssrc: 0xCAFE,
                                       extensionBlock: RTPHeaderExtensionBlock(profile: 0xBEDE, data: [0x10, 0x01]),
                                       paddingLength: 2)
        let payload: [UInt8] = [1, 2, 3, 4, 5]
        var buffer = [UInt8](repeating: 0xEE, count: 64)
        let written = try payload.withWireBytes { p throws(WireError) in
            try buffer.withMutableWireBytes { out throws(WireError) in try builder.write(payload: p, into: out) }
        }
        #expect(Array(buffer[0..<written]) == builder.build(payload: payload))
        #expect(buffer[written] == 0xEE)
        var tiny = [UInt8](repeating: 0, count: written - 1)
        #expect(throws: WireError.self) {
            try payload.withWireBytes { p throws(WireError) in
                try tiny.withMutableWireBytes { out throws(WireError) in try builder.write(payload: p, into: out) }
            }
        }
    }

    @Test func rewriteFieldsInPlace() throws {
        var packet = hex("80 ef 12 34 de ad be ef 01 02 03 04 aa bb cc")
        try RTPPacketRewriter.setSSRC(0xA1A2_A3A4, in: &packet)
        try RTPPacketRewriter.setSequenceNumber(0xBEEF, in: &packet)
        try RTPPacketRewriter.setTimestamp(0x0000_0010, in: &packet)
        try RTPPacketRewriter.setPayloadType(100, in: &packet)
        #expect(packet == hex("80 e4 be ef 00 00 00 10 a1 a2 a3 a4 aa bb cc"))
        try RTPPacketRewriter.setMarker(false, in: &packet)
        #expect(packet[1] == 0x64)
        try RTPPacketRewriter.setMarker(true, in: &packet)
        #expect(packet[1] == 0xE4)
        #expect(throws: WireError.self) { try RTPPacketRewriter.setPayloadType(128, in: &packet) }
    }

    @Test func rewriteAllAtOnceKeepsEverythingElse() throws {
        let original = hex("b1 e0 00 01 00 00 00 64 11 22 33 44 55 55 55 55 be de 00 01 10 aa 00 00 de ad 00 00 03")
        var packet = original
        try RTPPacketRewriter.rewrite(&packet, ssrc: 0x0BAD_F00D, sequenceNumber: 2, timestamp: 3, payloadType: 97)
        #expect(packet == hex("b1 e1 00 02 00 00 00 03 0b ad f0 0d 55 55 55 55 be de 00 01 10 aa 00 00 de ad 00 00 03"))
    }

    @Test func rewriteRejectsShortBuffers() {
        var short = hex("80 60 00 01 00 00 00 64 11 22 33")
        #expect(throws: WireError.self) { try RTPPacketRewriter.setSSRC(1, in: &short) }
        #expect(throws: WireError.self) { try RTPPacketRewriter.rewrite(&short, ssrc: 1, sequenceNumber: 1, timestamp: 1) }
        var empty: [UInt8] = []
        #expect(throws: WireError.self) { try RTPPacketRewriter.setMarker(true, in: &empty) }
    }

    @Test func setTransportSequenceNumberAndAbsSendTimeInPlace() throws {
        // id 3: abs-send-time (3 bytes), id 5: transport-wide seq (2 bytes).
        var packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 32 00 00 00 51 00 00 00 aa")
        let header = try RTPHeader(parsing: packet)
        let done = try packet.withMutableWireBytes { bytes throws(WireError) in
            let a = try RTPPacketRewriter.setTransportSequenceNumber(0xABCD, id: 5, in: bytes, header: header)
            let b = try RTPPacketRewriter.setAbsSendTime(0x12_3456, id: 3, in: bytes, header: header)
            let c = try RTPPacketRewriter.setTransportSequenceNumber(1, id: 9, in: bytes, header: header)
            let d = try RTPPacketRewriter.setExtension(id: 5, to: [1, 2, 3], in: bytes, header: header)
            return [a, b, c, d]
        }
        #expect(done == [true, true, false, false])
        #expect(packet == hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 32 12 34 56 51 ab cd 00 aa"))
    }

    @Test func rtxWrapAndUnwrap() throws {
        // RFC 4588 §4: original seq 0x1234 becomes the OSN; padding is not carried over.
        let original = hex("90 e0 12 34 00 00 00 64 11 22 33 44 be de 00 01 10 aa 00 00 01 02 03")
        let rtx = try RTX.wrap(original, rtxSSRC: 0x5566_7788, rtxPayloadType: 97, rtxSequenceNumber: 7)
        #expect(rtx == hex("90 e1 00 07 00 00 00 64 55 66 77 88 be de 00 01 10 aa 00 00 12 34 01 02 03"))
        let restored = try RTX.unwrap(rtx, originalSSRC: 0x1122_3344, originalPayloadType: 96)
        #expect(restored == original)
    }

    @Test func rtxDropsPadding() throws {
        let padded = hex("a0 60 00 05 00 00 00 64 11 22 33 44 01 02 00 02")
        let rtx = try RTX.wrap(padded, rtxSSRC: 9, rtxPayloadType: 97, rtxSequenceNumber: 1)
        #expect(rtx == hex("80 61 00 01 00 00 00 64 00 00 00 09 00 05 01 02"))
        let paddedRTX = hex("a0 61 00 01 00 00 00 64 00 00 00 09 00 05 01 02 00 00 00 04")
        #expect(try RTX.unwrap(paddedRTX, originalSSRC: 0x1122_3344, originalPayloadType: 96)
            == hex("80 60 00 05 00 00 00 64 11 22 33 44 01 02"))
    }

    @Test func rtxWithAHeaderFromAnotherPacketThrows() throws {
        let long = hex("80 61 00 01 00 00 00 64 00 00 00 09 00 05 01 02 03 04 05 06")
        let short = hex("80 61 00 01 00 00 00 64 00 00 00 09 00 05 01")
        let header = try RTPHeader(parsing: long)
        var output = [UInt8](repeating: 0, count: 64)
        #expect(throws: WireError.self) {
            try short.withWireBytes { input throws(WireError) in
                try output.withMutableWireBytes { out throws(WireError) in
                    try RTX.unwrap(input, header: header, originalSSRC: 1, originalPayloadType: 96, into: out)
                }
            }
        }
        #expect(throws: WireError.self) {
            try short.withWireBytes { input throws(WireError) in
                try output.withMutableWireBytes { out throws(WireError) in
                    try RTX.wrap(input, header: header, rtxSSRC: 1, rtxPayloadType: 97, rtxSequenceNumber: 1, into: out)
                }
            }
        }
    }

    @Test func rtxWithoutOSNThrows() {
        // A padding-only RTX probe has no original packet inside.
        let probe = hex("a0 61 00 01 00 00 00 64 00 00 00 09 00 00 00 04")
        #expect(throws: WireError.self) { try RTX.unwrap(probe, originalSSRC: 1, originalPayloadType: 96) }
        #expect(throws: WireError.self) {
            try RTX.unwrap(hex("80 61 00 01 00 00 00 64 00 00 00 09 01"), originalSSRC: 1, originalPayloadType: 96)
        }
    }
}
