import OnAirWire
import Testing

@testable import OnAirRTP

/// Parses `bytes` as a compound holding exactly one packet.
func parseSingle(_ bytes: [UInt8]) throws -> RTCPPacket {
    let packets = try RTCPPacket.parseCompound(bytes)
    try #require(packets.count == 1)
    return packets[0]
}

@Suite("RTCP reports (RFC 3550 §6.4-6.7)")
struct RTCPReportTests {
    static let block = ReportBlock(
        ssrc: 0x1234_ABCD, fractionLost: 0x10, cumulativeLost: 5, extendedHighestSequenceNumber: 0x0001_0203,
        jitter: 0x20, lastSenderReport: 0x1A2B_4C5D, delaySinceLastSenderReport: 0x0001_0000)
    static let blockBytes = "12 34 ab cd 10 00 00 05 00 01 02 03 00 00 00 20 1a 2b 4c 5d 00 01 00 00"

    @Test func senderReportWithBlock() throws {
        let bytes = hex("""
            81 c8 00 0c 12 34 ab cd e8 7c 1a 2b 4c 5d 6e 7f 00 ab cd ef 00 00 00 64 00 00 fa 00
            00 00 00 01 10 ff ff fe 00 01 02 03 00 00 00 20 1a 2b 4c 5d 00 01 00 00
            """)
        let report = SenderReport(
            ssrc: 0x1234_ABCD, ntpTime: NTPTime(rawValue: 0xE87C_1A2B_4C5D_6E7F), rtpTimestamp: 0x00AB_CDEF,
            packetCount: 100, octetCount: 64000,
            reportBlocks: [ReportBlock(ssrc: 1, fractionLost: 0x10, cumulativeLost: -2,
                                       extendedHighestSequenceNumber: 0x0001_0203, jitter: 0x20,
                                       lastSenderReport: 0x1A2B_4C5D, delaySinceLastSenderReport: 0x0001_0000)])
        #expect(try parseSingle(bytes) == .senderReport(report))
        #expect(report.serialized() == bytes)
        #expect(report.serializedSize == 52)
    }

    @Test func senderReportWithoutBlocksIs28Bytes() {
        let report = SenderReport(ssrc: 1, ntpTime: NTPTime(rawValue: 0), rtpTimestamp: 0, packetCount: 0, octetCount: 0)
        #expect(report.serialized() == hex("80 c8 00 06 00 00 00 01") + [UInt8](repeating: 0, count: 20))
    }

    @Test func receiverReport() throws {
        let bytes = hex("81 c9 00 07 00 00 00 01 " + Self.blockBytes)
        let report = ReceiverReport(ssrc: 1, reportBlocks: [Self.block])
        #expect(try parseSingle(bytes) == .receiverReport(report))
        #expect(report.serialized() == bytes)
        #expect(ReceiverReport(ssrc: 9).serialized() == hex("80 c9 00 01 00 00 00 09"))
    }

    @Test func receiverReportKeepsProfileExtension() throws {
        let bytes = hex("80 c9 00 02 00 00 00 01 aa bb cc dd")
        #expect(try parseSingle(bytes) == .receiverReport(ReceiverReport(ssrc: 1, profileExtension: [0xAA, 0xBB, 0xCC, 0xDD])))
    }

    @Test func cumulativeLostIs24BitSigned() throws {
        var reader = ByteReader(hex("00 00 00 01 00 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"))
        #expect(try ReportBlock(parsing: &reader).cumulativeLost == -0x80_0000)
        var writer = ByteWriter()
        ReportBlock(ssrc: 1, cumulativeLost: 10_000_000).serialize(into: &writer)
        #expect(Array(writer.bytes[5..<8]) == [0x7F, 0xFF, 0xFF])
        writer = ByteWriter()
        ReportBlock(ssrc: 1, cumulativeLost: -10_000_000).serialize(into: &writer)
        #expect(Array(writer.bytes[5..<8]) == [0x80, 0x00, 0x00])
    }

    @Test func sourceDescriptionWithTwoChunks() throws {
        let bytes = hex("""
            82 ca 00 07 00 00 00 01 01 02 61 62 00 00 00 00
            00 00 00 02 01 03 61 62 63 02 01 78 00 00 00 00
            """)
        let sdes = SourceDescription(chunks: [
            .init(ssrc: 1, items: [.cname("ab")]),
            .init(ssrc: 2, items: [.cname("abc"), SDESItem(type: SDESItem.name, text: "x")]),
        ])
        #expect(try parseSingle(bytes) == .sourceDescription(sdes))
        #expect(sdes.serialized() == bytes)
        #expect(sdes.serializedSize == 32)
    }

    @Test func sourceDescriptionWithoutTerminatorThrows() {
        #expect(throws: WireError.self) { try RTCPPacket.parseCompound(hex("81 ca 00 02 00 00 00 01 01 02 61 62")) }
    }

    @Test func goodbyeWithAndWithoutReason() throws {
        let withReason = hex("81 cb 00 03 12 34 ab cd 04 67 6f 6e 65 00 00 00")
        let bye = Goodbye(ssrcs: [0x1234_ABCD], reason: "gone")
        #expect(try parseSingle(withReason) == .goodbye(bye))
        #expect(bye.serialized() == withReason)
        let plain = hex("82 cb 00 02 00 00 00 01 00 00 00 02")
        #expect(try parseSingle(plain) == .goodbye(Goodbye(ssrcs: [1, 2])))
        #expect(Goodbye(ssrcs: [1, 2]).serialized() == plain)
        // Reason of 3 bytes: length octet + 3 = one word, no padding.
        #expect(Goodbye(ssrcs: [1], reason: "bye").serialized() == hex("81 cb 00 02 00 00 00 01 03 62 79 65"))
    }

    @Test func applicationDefined() throws {
        let bytes = hex("81 cc 00 03 12 34 ab cd 54 45 53 54 01 02 03 04")
        let app = ApplicationDefined(subtype: 1, ssrc: 0x1234_ABCD, name: 0x5445_5354, data: [1, 2, 3, 4])
        #expect(try parseSingle(bytes) == .applicationDefined(app))
        #expect(app.serialized() == bytes)
    }

    @Test func extendedReportKeptRaw() throws {
        let bytes = hex("80 cf 00 04 12 34 ab cd 04 00 00 02 e8 7c 1a 2b 4c 5d 6e 7f")
        let xr = ExtendedReport(ssrc: 0x1234_ABCD, reportBlocks: hex("04 00 00 02 e8 7c 1a 2b 4c 5d 6e 7f"))
        #expect(try parseSingle(bytes) == .extendedReport(xr))
        #expect(xr.serialized() == bytes)
    }
}
