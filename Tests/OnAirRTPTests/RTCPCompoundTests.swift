import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("RTCP compound packets (RFC 3550 §6.1)")
struct RTCPCompoundTests {
    /// What a Chromium sender emits every second or so: SR, then SDES with a 16-character CNAME.
    static let senderCompound = hex("""
        80 c8 00 06 12 34 ab cd e8 7c 1a 2b 4c 5d 6e 7f 00 ab cd ef 00 00 00 64 00 00 fa 00
        81 ca 00 06 12 34 ab cd 01 10 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 00 00
        """)
    static let receiverReport = "81 c9 00 07 00 00 00 01 12 34 ab cd 10 00 00 05 00 01 02 03 00 00 00 20 1a 2b 4c 5d 00 01 00 00"

    @Test func chromiumLikeSenderCompound() throws {
        let packets = try RTCPPacket.parseCompound(Self.senderCompound)
        let sr = SenderReport(ssrc: 0x1234_ABCD, ntpTime: NTPTime(rawValue: 0xE87C_1A2B_4C5D_6E7F),
                              rtpTimestamp: 0x00AB_CDEF, packetCount: 100, octetCount: 64000)
        let sdes = SourceDescription(ssrc: 0x1234_ABCD, cname: "abcdefghijklmnop")
        #expect(packets == [.senderReport(sr), .sourceDescription(sdes)])
        #expect(RTCPCompoundBuilder.serialize(packets) == Self.senderCompound)
        guard case .sourceDescription(let parsed) = packets[1] else { return }
        #expect(parsed.chunks.first?.items.first?.text == "abcdefghijklmnop")
    }

    @Test func receiverReportWithREMB() throws {
        let bytes = hex(Self.receiverReport + "8f ce 00 05 00 00 00 01 00 00 00 00 52 45 4d 42 01 0e dc 6c 12 34 ab cd")
        let packets = try RTCPPacket.parseCompound(bytes)
        #expect(packets.count == 2)
        guard case .receiverReport(let rr) = packets[0], case .remb(let remb) = packets[1] else {
            Issue.record("unexpected packets \(packets)")
            return
        }
        #expect(rr.reportBlocks.first?.fractionLost == 0x10)
        #expect(remb.bitrate == 1_500_000 && remb.ssrcs == [0x1234_ABCD])
        var builder = RTCPCompoundBuilder()
        builder.append(.receiverReport(rr))
        builder.append(.remb(remb))
        #expect(builder.serializedSize == bytes.count)
        #expect(builder.build() == bytes)
    }

    @Test func receiverReportWithPLIAndNACK() throws {
        let bytes = hex(Self.receiverReport
            + "81 ce 00 02 00 00 00 01 12 34 ab cd"
            + "81 cd 00 04 00 00 00 01 12 34 ab cd 00 64 00 05 01 00 00 00")
        let packets = try RTCPPacket.parseCompound(bytes)
        #expect(packets.count == 3)
        #expect(packets[1] == .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1234_ABCD)))
        guard case .genericNACK(let nack) = packets[2] else {
            Issue.record("no NACK")
            return
        }
        #expect(nack.lostSequenceNumbers == [100, 101, 103, 256])
        #expect(RTCPCompoundBuilder.serialize(packets) == bytes)
    }

    @Test func unknownTypesAreKeptVerbatim() throws {
        let unknownType = hex("80 d2 00 01 00 00 00 01")
        let notREMB = hex("8f ce 00 03 00 00 00 01 00 00 00 00 41 42 43 44")
        let tmmbr = hex("83 cd 00 02 00 00 00 01 00 00 00 02")
        let packets = try RTCPPacket.parseCompound(unknownType + notREMB + tmmbr)
        #expect(packets == [.unknown(type: 210, bytes: unknownType), .unknown(type: 206, bytes: notREMB),
                            .unknown(type: 205, bytes: tmmbr)])
        #expect(RTCPCompoundBuilder.serialize(packets) == unknownType + notREMB + tmmbr)
    }

    @Test func paddingOnTheLastPacketIsStripped() throws {
        let packets = try RTCPPacket.parseCompound(hex("a0 c9 00 02 00 00 00 01 00 00 00 04"))
        #expect(packets == [.receiverReport(ReceiverReport(ssrc: 1))])
    }

    @Test(arguments: [
        ("", "empty RTCP packet"),
        ("40 c9 00 01 00 00 00 01", "RTCP version 1, expected 2"),
        ("80 c9 00 02 00 00 00 01", "claims 12 bytes, only 8 left"),
        ("80 c9 00 01 00 00 00 01 80 c9", "RTCP header needs 4 bytes, 2 left"),
        ("80 c9 00 01 00 00 00 01 00 00 00 00", "RTCP version 0"),
        ("a0 c9 00 01 00 00 00 00", "padding count 0"),
        ("a0 c9 00 01 00 00 00 05", "padding count 5"),
        ("a0 c9 00 00", "padding count 0 does not fit a 0-byte"),
        ("81 c9 00 01 00 00 00 01", "RR with 1 report blocks needs 28 bytes"),
        ("80 c8 00 01 00 00 00 01", "SR with 0 report blocks needs 24 bytes"),
        ("81 cb 00 00", "BYE with 1 sources needs 4 bytes"),
        ("81 ce 00 01 00 00 00 01", "PLI needs 8 bytes"),
        ("81 cd 00 03 00 00 00 01 00 00 00 02 00 64 00", "claims 16 bytes"),
    ])
    func malformedCompoundsThrowWithReason(packet: String, reason: String) {
        do {
            _ = try RTCPPacket.parseCompound(hex(packet))
            Issue.record("expected \(reason)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func lengthFieldIsWordsMinusOne() {
        let packets: [RTCPPacket] = [
            .senderReport(SenderReport(ssrc: 1, ntpTime: NTPTime(rawValue: 1), rtpTimestamp: 2, packetCount: 3,
                                       octetCount: 4, reportBlocks: [ReportBlock(ssrc: 5)], profileExtension: [1])),
            .sourceDescription(SourceDescription(ssrc: 1, cname: "x")),
            .goodbye(Goodbye(ssrcs: [1, 2, 3], reason: "a reason")),
            .fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 2, sequenceNumber: 3)])),
            .transportWideFeedback(TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 3,
                                                         referenceTime: 4, feedbackPacketCount: 5,
                                                         receiveDeltas: [1, nil, 1000])),
            .applicationDefined(ApplicationDefined(subtype: 3, ssrc: 1, name: 2, data: [1, 2, 3, 4, 5])),
        ]
        for packet in packets {
            var writer = ByteWriter()
            packet.serialize(into: &writer)
            let bytes = writer.bytes
            #expect(bytes.count == packet.serializedSize)
            #expect(bytes.count % 4 == 0)
            #expect((Int(bytes[2]) << 8 | Int(bytes[3])) == bytes.count / 4 - 1)
            #expect((try? RTCPPacket.parseCompound(bytes)) != nil)
        }
    }
}
