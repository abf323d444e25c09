import OnAirRTP
import Testing

@testable import OnAirBroadcast

@Suite("RTPStreamSender: header, history, sender reports")
struct RTPStreamSenderTests {
    private func write(_ sender: RTPStreamSender, payload: [UInt8], marker: Bool, timestamp: UInt32, wide: UInt16,
                       at now: UInt64) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1500)
        let length = sender.headerLength + payload.count
        buffer.withUnsafeMutableBytes { raw in
            let number = sender.writeHeader(into: raw, marker: marker, mediaTimestamp: timestamp, transportSequence: wide,
                                            absSendTime: 0x12_3456)
            for (index, byte) in payload.enumerated() { raw[sender.headerLength + index] = byte }
            sender.sent(UnsafeRawBufferPointer(rebasing: raw[0..<length]), sequence: number, payloadLength: payload.count,
                        mediaTimestamp: timestamp, at: now)
        }
        return Array(buffer[0..<length])
    }

    @Test("one-byte extensions (RFC 8285 §4.2) parse back: abs-send-time, transport-wide sequence, mid")
    func headerParsesBack() throws {
        let sender = RTPStreamSender(ssrc: 0xCAFE_BABE, payloadType: 96, clockRate: 90_000,
                                     extensions: RTPExtensionIDs(absSendTime: 2, transportSequence: 3, mid: 4),
                                     mid: "1", historyPackets: 16)
        #expect(sender.headerLength == 12 + 4 + 12, "4 + 3 + 2 bytes of elements padded to 12")
        let first = write(sender, payload: [1, 2, 3], marker: false, timestamp: 3000, wide: 65535, at: 1)
        let second = write(sender, payload: [4], marker: true, timestamp: 3000, wide: 0, at: 2)
        let header = try RTPHeader(parsing: first)
        #expect(header.ssrc == 0xCAFE_BABE && header.payloadType == 96 && !header.marker)
        #expect(header.timestamp == sender.timestampOffset &+ 3000)
        #expect(Array(first[header.payloadRange]) == [1, 2, 3])
        #expect(try header.extensionElement(id: 2, in: first) == [0x12, 0x34, 0x56])
        #expect(try header.extensionElement(id: 3, in: first) == [0xFF, 0xFF])
        #expect(try header.extensionElement(id: 4, in: first) == Array("1".utf8))
        let next = try RTPHeader(parsing: second)
        #expect(next.sequenceNumber == header.sequenceNumber &+ 1 && next.marker)
        #expect(try next.extensionElement(id: 3, in: second) == [0, 0])
        #expect(sender.packetsSent == 2 && sender.payloadOctetsSent == 4)
    }

    @Test("without negotiated extensions the header is the 12-byte fixed header")
    func plainHeader() throws {
        let sender = RTPStreamSender(ssrc: 7, payloadType: 111, clockRate: 48_000, extensions: RTPExtensionIDs(), mid: "0",
                                     historyPackets: 0)
        let packet = write(sender, payload: [9, 9], marker: false, timestamp: 960, wide: 0, at: 0)
        #expect(sender.headerLength == 12 && packet[0] == 0x80)
        #expect(try RTPHeader(parsing: packet).hasExtension == false)
    }

    @Test("a NACKed packet comes back from the history byte for byte; an old one is gone")
    func history() {
        let sender = RTPStreamSender(ssrc: 1, payloadType: 96, clockRate: 90_000, extensions: RTPExtensionIDs(), mid: "1",
                                     historyPackets: 8)
        var sent: [[UInt8]] = []
        for index in 0..<20 { sent.append(write(sender, payload: [UInt8(index)], marker: true, timestamp: UInt32(index), wide: 0, at: 0)) }
        let newest = UInt16(sent[19][2]) << 8 | UInt16(sent[19][3])
        var copy: [UInt8] = []
        #expect(sender.withHistoryPacket(newest) { copy = Array($0) })
        #expect(copy == sent[19])
        #expect(!sender.withHistoryPacket(newest &- 12) { _ in })
    }

    @Test("RFC 3550 §6.4.1: the SR's RTP timestamp is the last media timestamp advanced at the clock rate")
    func senderReportTiming() throws {
        let sender = RTPStreamSender(ssrc: 5, payloadType: 96, clockRate: 90_000, extensions: RTPExtensionIDs(), mid: "1",
                                     historyPackets: 0)
        #expect(sender.senderReport(wallClock: 0, now: 0) == nil, "nothing sent, nothing to report")
        let mediaTime: UInt64 = 10_000_000_000
        _ = write(sender, payload: [0, 0, 0], marker: true, timestamp: 90_000, wide: 0, at: mediaTime)
        _ = write(sender, payload: [0], marker: true, timestamp: 90_000, wide: 0, at: mediaTime + 5_000_000)
        let wall: UInt64 = 1_700_000_000_000_000_000
        let report = try #require(sender.senderReport(wallClock: wall, now: mediaTime + 500_000_000))
        #expect(report.rtpTimestamp == sender.timestampOffset &+ 90_000 &+ 45_000, "0.5 s later at 90 kHz, from the first packet's time")
        #expect(report.ntpTime == NTPTime(unixNanoseconds: wall))
        #expect(report.packetCount == 2 && report.octetCount == 4)
    }
}
