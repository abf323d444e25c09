import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("Header extension ID rewriting")
struct RTPHeaderExtensionRewriterTests {
    /// One-byte block: id 1 [AA], id 2 [01 02 03], two padding octets; payload DEADBEEF.
    let oneByte = hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 10 aa 22 01 02 03 00 00 de ad be ef")

    @Test func inPlaceRenumbersAndPadsOutDropped() throws {
        var packet = oneByte
        let header = try RTPHeader(parsing: packet)
        try RTPHeaderExtensionRewriter(mapping: [1: 3]).rewriteInPlace(&packet, header: header)
        #expect(packet == hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 30 aa 00 00 00 00 00 00 de ad be ef"))
        let reparsed = try RTPHeader(parsing: packet)
        #expect(try reparsed.extensionElements(in: packet) == [RTPHeaderExtensionElement(id: 3, data: [0xAA])])
    }

    @Test func inPlaceDropsIDsTooLargeForOneByteForm() throws {
        var packet = oneByte
        let header = try RTPHeader(parsing: packet)
        try RTPHeaderExtensionRewriter(mapping: [1: 20, 2: 2]).rewriteInPlace(&packet, header: header)
        #expect(try header.extensionElements(in: packet) == [RTPHeaderExtensionElement(id: 2, data: [1, 2, 3])])
    }

    @Test func inPlaceTwoByte() throws {
        var packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 10 00 00 02 05 00 06 03 01 02 03 00 ff")
        let header = try RTPHeader(parsing: packet)
        try RTPHeaderExtensionRewriter(mapping: [6: 200]).rewriteInPlace(&packet, header: header)
        #expect(packet == hex("90 60 00 01 00 00 00 64 11 22 33 44 10 00 00 02 00 00 c8 03 01 02 03 00 ff"))
    }

    @Test func intoOutputCompactsTheBlock() throws {
        let rewritten = try RTPHeaderExtensionRewriter(mapping: [1: 3]).rewrite(oneByte)
        #expect(rewritten == hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 01 30 aa 00 00 de ad be ef"))
    }

    @Test func intoOutputKeepsOrderAndPadding() throws {
        let rewritten = try RTPHeaderExtensionRewriter(mapping: [1: 4, 2: 9]).rewrite(oneByte)
        #expect(rewritten == hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 40 aa 92 01 02 03 00 00 de ad be ef"))
    }

    @Test func droppingEverythingRemovesTheBlockAndXBit() throws {
        let rewritten = try RTPHeaderExtensionRewriter(mapping: [:]).rewrite(oneByte)
        #expect(rewritten == hex("80 60 00 01 00 00 00 64 11 22 33 44 de ad be ef"))
        let header = try RTPHeader(parsing: rewritten)
        #expect(!header.hasExtension)
    }

    @Test func rtpPaddingAndCSRCsSurvive() throws {
        // CC=1, one-byte extension with id 2 [01 02], payload [AA], 3 padding octets.
        let packet = hex("b1 60 00 01 00 00 00 64 11 22 33 44 55 55 55 55 be de 00 01 21 01 02 00 aa 00 00 03")
        let rewritten = try RTPHeaderExtensionRewriter(mapping: [2: 7]).rewrite(packet)
        #expect(rewritten == hex("b1 60 00 01 00 00 00 64 11 22 33 44 55 55 55 55 be de 00 01 71 01 02 00 aa 00 00 03"))
        let header = try RTPHeader(parsing: rewritten)
        #expect(header.payloadLength == 1 && header.paddingLength == 3 && header.csrcs == [0x5555_5555])
    }

    @Test func packetWithoutExtensionIsCopied() throws {
        let packet = hex("80 60 00 01 00 00 00 64 11 22 33 44 01")
        #expect(try RTPHeaderExtensionRewriter(mapping: [1: 2]).rewrite(packet) == packet)
    }

    @Test func unknownProfileIsLeftAlone() throws {
        var packet = hex("90 60 00 01 00 00 00 64 11 22 33 44 ab cd 00 01 10 aa 00 00")
        let original = packet
        let header = try RTPHeader(parsing: packet)
        let rewriter = RTPHeaderExtensionRewriter(mapping: [1: 2])
        try rewriter.rewriteInPlace(&packet, header: header)
        #expect(packet == original)
        #expect(try rewriter.rewrite(packet) == original)
    }

    @Test func outputTooSmallThrows() throws {
        let header = try RTPHeader(parsing: oneByte)
        var small = [UInt8](repeating: 0, count: oneByte.count - 1)
        #expect(throws: WireError.self) {
            try oneByte.withWireBytes { input throws(WireError) in
                try small.withMutableWireBytes { out throws(WireError) in
                    try RTPHeaderExtensionRewriter(mapping: [1: 1]).rewrite(input, header: header, into: out)
                }
            }
        }
    }

    @Test func viewerIDLookup() {
        let rewriter = RTPHeaderExtensionRewriter(mapping: [1: 3, 4: 0])
        #expect(rewriter.viewerID(for: 1) == 3)
        #expect(rewriter.viewerID(for: 4) == nil)
        #expect(rewriter.viewerID(for: 200) == nil)
    }
}
