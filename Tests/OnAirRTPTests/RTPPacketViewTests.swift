import OnAirRTP
import Testing

/// The forwarding path's header view against the general parser.
@Suite("RTP packet view")
struct RTPPacketViewTests {
    static func view(_ packet: [UInt8]) -> RTPPacketView? { packet.withUnsafeBytes { RTPPacketView($0) } }

    @Test("reads what RTPHeader reads: CSRCs, a one-byte extension, padding")
    func agreesWithHeader() throws {
        let block = try RTPHeaderExtensionBlock(elements: [
            RTPHeaderExtensionElement(id: 3, data: [0x01, 0x02]), RTPHeaderExtensionElement(id: 10, data: Array("h".utf8)),
        ])
        let packet = RTPPacketBuilder(payloadType: 96, sequenceNumber: 65_535, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304, marker: true,
                                      csrcs: [7, 8], extensionBlock: block, paddingLength: 4).build(payload: [0x65, 1, 2, 3, 4])
        let header = try RTPHeader(parsing: packet)
        let view = try #require(Self.view(packet))
        #expect(view.payloadType == 96 && view.marker && view.sequence == 65_535 && view.timestamp == 0xDEAD_BEEF && view.ssrc == 0x0102_0304)
        #expect(view.payloadRange == header.payloadRange)
        #expect(Array(packet[view.payloadRange]) == [0x65, 1, 2, 3, 4])
        packet.withUnsafeBytes { raw in
            #expect(view.extensionElement(id: 10, in: raw).map { Array(raw[$0]) } == Array("h".utf8))
            #expect(view.extensionElement(id: 3, in: raw).map { Array(raw[$0]) } == [0x01, 0x02])
            #expect(view.extensionElement(id: 4, in: raw) == nil)
        }
    }

    @Test("refuses what RTPHeader refuses: short, version 1, extension or padding past the end, zero padding")
    func refusals() {
        let good = RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3).build(payload: [1, 2, 3])
        var version1 = good
        version1[0] = 0x40
        var extensionPastEnd = good
        extensionPastEnd[0] |= 0x10
        var zeroPadding = good
        zeroPadding[0] |= 0x20
        zeroPadding[zeroPadding.count - 1] = 0
        var paddingPastEnd = good
        paddingPastEnd[0] |= 0x20
        paddingPastEnd[paddingPastEnd.count - 1] = 200
        for packet in [Array(good.prefix(11)), version1, extensionPastEnd, zeroPadding, paddingPastEnd] {
            #expect(Self.view(packet) == nil)
            #expect((try? RTPHeader(parsing: packet)) == nil)
        }
        #expect(Self.view(good) != nil)
    }

    @Test("a header view of a packet, finished once its payload is plain, is the view of the whole packet")
    func headerThenPadding() throws {
        let block = try RTPHeaderExtensionBlock(elements: [RTPHeaderExtensionElement(id: 5, data: [9, 9, 9])])
        let packets = [
            RTPPacketBuilder(payloadType: 96, sequenceNumber: 9, timestamp: 1, ssrc: 2, csrcs: [4], extensionBlock: block,
                             paddingLength: 7).build(payload: [1, 2, 3]),
            RTPPacketBuilder(payloadType: 111, sequenceNumber: 10, timestamp: 3, ssrc: 4).build(payload: [5]),
            RTPPacketBuilder(payloadType: 96, sequenceNumber: 11, timestamp: 5, ssrc: 6, paddingLength: 2).build(payload: []),
        ]
        for packet in packets {
            try packet.withUnsafeBytes { raw in
                var header = try #require(RTPPacketView(header: raw))
                #expect(header.payloadRange.upperBound == raw.count)
                #expect(header.headerLength == (try RTPHeader(parsing: packet)).payloadOffset)
                let finished = header.removePadding(in: raw)
                #expect(finished)
                #expect(header == RTPPacketView(raw))
            }
        }
        // Padding that does not fit: the header reads, the packet does not.
        var bad = RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3).build(payload: [1, 2, 3])
        bad[0] |= 0x20
        bad[bad.count - 1] = 9
        bad.withUnsafeBytes { raw in
            var header = RTPPacketView(header: raw)
            #expect(header != nil)
            let finished = header?.removePadding(in: raw)
            #expect(finished == false)
        }
    }
}
