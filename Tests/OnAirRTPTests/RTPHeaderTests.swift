import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("RTP header (RFC 3550 §5.1)")
struct RTPHeaderTests {
    @Test func minimalPacket() throws {
        // V=2, PT=111 with marker, seq 0x1234, ts 0xDEADBEEF, SSRC 0x01020304, 3-byte payload.
        let packet = hex("80 ef 12 34 de ad be ef 01 02 03 04 aa bb cc")
        let header = try RTPHeader(parsing: packet)
        #expect(header.marker)
        #expect(header.payloadType == 111)
        #expect(header.sequenceNumber == 0x1234)
        #expect(header.timestamp == 0xDEAD_BEEF)
        #expect(header.ssrc == 0x0102_0304)
        #expect(header.csrcs.isEmpty)
        #expect(!header.hasExtension && !header.hasPadding)
        #expect(header.payloadOffset == 12)
        #expect(header.payloadLength == 3)
        #expect(header.paddingLength == 0)
        #expect(header.extensionForm == nil)
    }

    @Test func csrcsAreRead() throws {
        let packet = hex("82 60 00 01 00 00 00 64 11 22 33 44 aa aa aa aa bb bb bb bb 01 02")
        let header = try RTPHeader(parsing: packet)
        #expect(header.csrcs == [0xAAAA_AAAA, 0xBBBB_BBBB])
        #expect(!header.marker)
        #expect(header.payloadType == 96)
        #expect(header.payloadOffset == 20)
        #expect(header.payloadLength == 2)
    }

    @Test func oneByteExtension() throws {
        // X=1, 0xBEDE, 2 words: id 1 [AA], id 2 [01 02 03], two padding octets; 4-byte payload.
        let packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 10 aa 22 01 02 03 00 00 de ad be ef")
        let header = try RTPHeader(parsing: packet)
        #expect(header.hasExtension)
        #expect(header.extensionProfile == 0xBEDE)
        #expect(header.extensionForm == .oneByte)
        #expect(header.extensionHeaderOffset == 12)
        #expect(header.extensionDataRange == 16..<24)
        #expect(header.payloadRange == 24..<28)
        #expect(try header.extensionElements(in: packet) == [
            RTPHeaderExtensionElement(id: 1, data: [0xAA]),
            RTPHeaderExtensionElement(id: 2, data: [1, 2, 3]),
        ])
        #expect(try header.extensionElement(id: 2, in: packet) == [1, 2, 3])
        #expect(try header.extensionElement(id: 3, in: packet) == nil)
    }

    @Test func twoByteExtension() throws {
        // 0x1000 with app bits 0; id 5 zero-length, id 6 [01 02 03], one padding octet.
        let packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 10 00 00 02 05 00 06 03 01 02 03 00 ff")
        let header = try RTPHeader(parsing: packet)
        #expect(header.extensionForm == .twoByte(appBits: 0))
        #expect(try header.extensionElements(in: packet) == [
            RTPHeaderExtensionElement(id: 5, data: []),
            RTPHeaderExtensionElement(id: 6, data: [1, 2, 3]),
        ])
        #expect(header.payloadLength == 1)
    }

    @Test func twoByteExtensionAppBits() throws {
        let packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 10 0a 00 01 07 01 55 00")
        let header = try RTPHeader(parsing: packet)
        #expect(header.extensionForm == .twoByte(appBits: 0xA))
        #expect(try header.extensionElements(in: packet) == [RTPHeaderExtensionElement(id: 7, data: [0x55])])
        #expect(header.payloadLength == 0)
    }

    @Test func unknownProfileHasNoElements() throws {
        let packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 ab cd 00 01 01 02 03 04")
        let header = try RTPHeader(parsing: packet)
        #expect(header.extensionForm == nil)
        #expect(header.extensionDataRange == 16..<20)
        #expect(try header.extensionElements(in: packet).isEmpty)
    }

    @Test func paddingIsExcludedFromPayload() throws {
        // P=1, payload [01 02], padding of 3 octets (00 00 03).
        let packet = hex("a0 60 00 01 00 00 00 64 11 22 33 44 01 02 00 00 03")
        let header = try RTPHeader(parsing: packet)
        #expect(header.hasPadding)
        #expect(header.paddingLength == 3)
        #expect(header.payloadLength == 2)
        #expect(header.payloadRange == 12..<14)
    }

    @Test func paddingOnlyPacket() throws {
        // A probe packet: no payload, 4 padding octets.
        let header = try RTPHeader(parsing: hex("a0 60 00 01 00 00 00 64 11 22 33 44 00 00 00 04"))
        #expect(header.payloadLength == 0)
        #expect(header.paddingLength == 4)
    }

    @Test func rawBufferParseMatchesArrayParse() throws {
        let packet = hex("b1 e0 ff ff 00 00 00 01 11 22 33 44 99 99 99 99 be de 00 01 31 00 07 00 aa bb 00 02")
        let fromArray = try RTPHeader(parsing: packet)
        let fromBuffer = try packet.withUnsafeBytes { try RTPHeader(parsing: $0) }
        #expect(fromArray == fromBuffer)
        #expect(fromArray.csrcs == [0x9999_9999])
        #expect(fromArray.payloadLength == 2)
    }

    @Test(arguments: [
        ("", "shorter than the 12-byte fixed header"),
        ("80 60 00 01 00 00 00 64 11 22 33", "shorter than the 12-byte fixed header"),
        ("40 60 00 01 00 00 00 64 11 22 33 44", "RTP version 1, expected 2"),
        ("c0 60 00 01 00 00 00 64 11 22 33 44", "RTP version 3, expected 2"),
        ("81 60 00 01 00 00 00 64 11 22 33 44", "CSRC count 1 runs past"),
        ("8f 60 00 01 00 00 00 64 11 22 33 44 00 00 00 00", "CSRC count 15 runs past"),
        ("90 60 00 01 00 00 00 64 11 22 33 44 be de", "no room for the extension header"),
        ("90 60 00 01 00 00 00 64 11 22 33 44 be de ff ff 00 00 00 00", "runs past the end"),
        ("a0 60 00 01 00 00 00 64 11 22 33 44 01 02 00 00", "padding count is zero"),
        ("a0 60 00 01 00 00 00 64 11 22 33 44 01 02 00 05", "padding of 5 bytes is longer"),
        ("a0 60 00 01 00 00 00 64 11 22 33 44", "padding of 68 bytes"),
    ])
    func malformedPacketsThrowWithReason(packet: String, reason: String) {
        let bytes = hex(packet)
        do {
            _ = try RTPHeader(parsing: bytes)
            Issue.record("expected \(reason)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }
}
