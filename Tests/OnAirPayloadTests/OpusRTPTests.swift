import OnAirWire
import Testing

@testable import OnAirPayload

@Suite("Opus over RTP (RFC 7587)")
struct OpusRTPTests {
    static let twentyMs: [UInt8] = [0xFC, 1, 2, 3]        // CELT FB 20 ms stereo, code 0
    static let sixtyMs: [UInt8] = [3 << 3 | 1, 5, 5]      // SILK NB 60 ms, code 1 → 2 × 60 ms

    @Test("timestamps advance by each packet's duration on the 48 kHz clock; the marker follows silence")
    func packetizer() throws {
        var p = OpusPacketizer(initialTimestamp: 0xFFFF_FE00)
        let first = try p.packetize(Self.twentyMs)
        #expect(first == .init(timestamp: 0xFFFF_FE00, marker: false, durationSamples: 960))
        let second = try p.packetize(Self.sixtyMs)
        #expect(second.timestamp == 0xFFFF_FE00 &+ 960 && !second.marker && second.durationSamples == 5760)
        p.skipSilence(samples: 4800)
        let afterSilence = try p.packetize(Self.twentyMs)
        #expect(afterSilence.timestamp == 0xFFFF_FE00 &+ 960 &+ 5760 &+ 4800 && afterSilence.marker)
        #expect(try !p.packetize(Self.twentyMs).marker)
        let before = p.nextTimestamp
        #expect(throws: WireError.self) { try p.packetize([UInt8]()) }
        #expect(p.nextTimestamp == before, "an invalid packet does not advance the clock")
    }

    /// RTP packets for `opus` packets, sequence numbers from 65530, timestamps from the packetizer.
    private func rtp(_ opus: [[UInt8]]) throws -> [RTPPayloadPacket] {
        var p = OpusPacketizer(initialTimestamp: 1000)
        return try opus.enumerated().map { i, packet in
            let out = try p.packetize(packet)
            return RTPPayloadPacket(sequenceNumber: 65530 &+ UInt16(i), timestamp: out.timestamp, marker: out.marker, payload: packet)
        }
    }

    @Test("packetize → depacketize gives the same Opus packets, in order, across the sequence wrap")
    func roundTrip() throws {
        let opus = (0..<12).map { i in i % 3 == 0 ? Self.sixtyMs : Self.twentyMs + [UInt8(i)] }
        var packets = try rtp(opus)
        packets.swapAt(3, 4)
        packets.swapAt(7, 9)
        var d = OpusDepacketizer()
        let frames = packets.flatMap { d.receive($0) }
        #expect(frames.map { Array($0.packet) } == opus)
        #expect(frames.allSatisfy { $0.gapSamples == 0 && $0.packetsLostBefore == 0 })
        #expect(frames.map(\.info.durationSamples) == opus.map { $0 == Self.sixtyMs ? 5760 : 960 })
    }

    @Test("losses and silences show up as gaps; malformed payloads are dropped; duplicates counted")
    func gaps() throws {
        let opus = Array(repeating: Self.twentyMs, count: 8)
        var packets = try rtp(opus)
        packets.remove(at: 2)                   // lost: 960 samples
        packets[4].timestamp &+= 4800           // silence before the sixth (DTX) ...
        packets[5].timestamp &+= 4800
        packets[6].timestamp &+= 4800
        packets.insert(packets[1], at: 3)       // a duplicate
        packets[7].payload = []                 // an empty payload: not Opus
        var d = OpusDepacketizer(reorderWindow: 1)
        let frames = packets.flatMap { d.receive($0) }
        #expect(frames.map(\.packetsLostBefore) == [0, 0, 1, 0, 0, 0])
        #expect(frames.map(\.gapSamples) == [0, 0, 960, 0, 4800, 0])
        #expect(d.statistics.packetsMalformed == 1 && d.statistics.packetsLate == 1 && d.statistics.packetsLost == 1)
        #expect(d.statistics.framesEmitted == 6)
    }

    @Test("flush releases packets held behind a gap")
    func flush() throws {
        let packets = try rtp(Array(repeating: Self.twentyMs, count: 4))
        var d = OpusDepacketizer()
        #expect(d.receive(packets[0]).count == 1)
        #expect(d.receive(packets[2]).isEmpty && d.receive(packets[3]).isEmpty)
        var frames: [OpusDepacketizer.Frame] = []
        d.flush { frames.append($0) }
        #expect(frames.map(\.packetsLostBefore) == [1, 0])
        #expect(frames.map(\.gapSamples) == [960, 0])
    }
}
