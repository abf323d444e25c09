import OnAirRTP
import Testing

@Suite("Sender report written in place")
struct SenderReportInPlaceTests {
    @Test("SR + SDES CNAME in a buffer: the octets the compound builder makes, for any CNAME length",
          arguments: [0, 1, 2, 3, 4, 5, 16, 254, 255, 300])
    func sameOctets(nameLength: Int) throws {
        let report = SenderReport(ssrc: 0xDEAD_BEEF, ntpTime: NTPTime(rawValue: 0x0123_4567_89AB_CDEF), rtpTimestamp: 90_000,
                                  packetCount: 77, octetCount: 123_456)
        let cname = String(repeating: "c", count: nameLength)
        let expected = RTCPCompoundBuilder.serialize([.senderReport(report), .sourceDescription(SourceDescription(ssrc: report.ssrc, cname: cname))])
        var buffer = [UInt8](repeating: 0xAA, count: 400)
        let length = try #require(buffer.withUnsafeMutableBytes { report.writeCompound(cname: cname, into: $0) })
        #expect(Array(buffer[..<length]) == expected)
        #expect(try RTCPPacket.parseCompound(Array(buffer[..<length])).count == 2)
        #expect(buffer.withUnsafeMutableBytes { report.writeCompound(cname: cname, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<(length - 1)])) } == nil)
    }
}
