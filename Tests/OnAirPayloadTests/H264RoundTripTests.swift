import OnAirRTP
import Testing

@testable import OnAirPayload

@Suite("H.264 RTP round-trip table (RFC 6184)")
struct H264RoundTripTests {
    @Test("packetizing gives the table's payloads", arguments: H264RoundTripTable.cases)
    func packetize(_ c: H264RoundTripTable.Case) {
        let payloads = H264Packetizer(maxPayloadSize: c.maxPayloadSize).packetize(c.accessUnit)
        #expect(payloads.map(\.bytes) == c.payloads)
        #expect(payloads.map(\.isLastOfAccessUnit) == c.payloads.indices.map { $0 == c.payloads.count - 1 })
        #expect(payloads.allSatisfy { $0.bytes.count <= c.maxPayloadSize })
    }

    @Test("the buffer-writing packetizer gives the same payloads behind a 12-byte header", arguments: H264RoundTripTable.cases)
    func packetizeIntoBuffer(_ c: H264RoundTripTable.Case) {
        let packetizer = H264Packetizer(maxPayloadSize: c.maxPayloadSize)
        var buffer = [UInt8](repeating: 0xEE, count: 12)
        var payloads: [[UInt8]] = []
        var markers: [Bool] = []
        packetizer.packetize(c.accessUnit, into: &buffer, at: 12) { buffer, length, isLast in
            #expect(buffer[0..<12].allSatisfy { $0 == 0xEE }, "the header room is left alone")
            payloads.append(Array(buffer[12..<12 + length]))
            markers.append(isLast)
        }
        #expect(payloads == c.payloads)
        #expect(markers == c.payloads.indices.map { $0 == c.payloads.count - 1 })
        #expect(buffer.count == 12 + c.maxPayloadSize)
    }

    @Test("depacketizing the table's payloads gives the access unit, across a sequence wrap",
          arguments: H264RoundTripTable.cases)
    func depacketize(_ c: H264RoundTripTable.Case) {
        var depacketizer = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        let units = feed(c.payloads, firstSequence: 65534, into: &depacketizer)
        #expect(units.count == 1)
        #expect(units.first?.nalUnits == c.accessUnit)
        #expect(units.first?.timestamp == 90_000)
        #expect(units.first?.isKeyframe == c.accessUnit.contains { $0[0] & 0x1F == 5 })
        #expect(depacketizer.statistics.packetsMalformed == 0 && depacketizer.statistics.packetsLost == 0)
    }

    @Test("depacketizing the payloads in reverse order (within the window) gives the same access unit",
          arguments: H264RoundTripTable.cases.filter { $0.payloads.count > 1 && $0.payloads.count < 64 })
    func depacketizeReordered(_ c: H264RoundTripTable.Case) {
        var depacketizer = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        // Send a first packet in order so the reorder buffer knows where the sequence starts.
        var packets = packetsFor(c.payloads, firstSequence: 100, timestamp: 90_000)
        let first = packets.removeFirst()
        var units = depacketizer.receive(first)
        for packet in packets.reversed() { units += depacketizer.receive(packet) }
        #expect(units.map(\.nalUnits) == [c.accessUnit])
        #expect(depacketizer.statistics.packetsLost == 0)
    }

    @Test("payloads also survive as whole RTP packets parsed by OnAirRTP", arguments: H264RoundTripTable.cases.prefix(6))
    func throughRTPPackets(_ c: H264RoundTripTable.Case) throws {
        var depacketizer = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        var units: [H264AccessUnit] = []
        for (i, payload) in c.payloads.enumerated() {
            let builder = RTPPacketBuilder(payloadType: 96, sequenceNumber: UInt16(i), timestamp: 3000, ssrc: 0x1234,
                                           marker: i == c.payloads.count - 1)
            units += depacketizer.receive(try RTPPayloadPacket(parsing: builder.build(payload: payload)))
        }
        #expect(units.map(\.nalUnits) == [c.accessUnit])
    }
}

func packetsFor(_ payloads: [[UInt8]], firstSequence: UInt16, timestamp: UInt32) -> [RTPPayloadPacket] {
    payloads.enumerated().map { i, payload in
        RTPPayloadPacket(sequenceNumber: firstSequence &+ UInt16(truncatingIfNeeded: i), timestamp: timestamp,
                         marker: i == payloads.count - 1, payload: payload)
    }
}

func feed(_ payloads: [[UInt8]], firstSequence: UInt16, timestamp: UInt32 = 90_000,
          into depacketizer: inout H264Depacketizer) -> [H264AccessUnit] {
    packetsFor(payloads, firstSequence: firstSequence, timestamp: timestamp).flatMap { depacketizer.receive($0) }
}
