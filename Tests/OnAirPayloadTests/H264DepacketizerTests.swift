import Testing

@testable import OnAirPayload
import OnAirTestSupport

/// Access unit boundaries, loss handling and bookkeeping of the depacketizer, on small
/// hand-made streams (the large random ones are in H264LossTests).
@Suite("H.264 depacketizer behaviour")
struct H264DepacketizerTests {
    typealias Table = H264RoundTripTable

    /// Payloads of a stream of access units (IDR first when `idrEvery` divides the index),
    /// one RTP timestamp each, 3000 ticks apart.
    static func stream(count: Int, idrEvery: Int = 4, firstSequence: UInt16 = 0, markers: Bool = true)
        -> (units: [[[UInt8]]], packets: [RTPPayloadPacket]) {
        var units: [[[UInt8]]] = []
        var packets: [RTPPayloadPacket] = []
        var sequence = firstSequence
        for i in 0..<count {
            let unit = i % idrEvery == 0
                ? [Table.sps, Table.pps, nalUnit(header: 0x65, count: 2600, seed: UInt64(i))]
                : [nalUnit(header: 0x41, count: 300 + i * 50, seed: UInt64(i))]
            units.append(unit)
            let payloads = H264Packetizer().packetize(unit)
            for payload in payloads {
                packets.append(RTPPayloadPacket(sequenceNumber: sequence, timestamp: UInt32(i) * 3000,
                                                marker: markers && payload.isLastOfAccessUnit, payload: payload.bytes))
                sequence &+= 1
            }
        }
        return (units, packets)
    }

    @Test("a lost FU-A fragment drops its access unit and everything until the next IDR")
    func lossInsideFUA() {
        let (units, packets) = Self.stream(count: 9)
        // Access unit 4 is an IDR in FU-As: packets 0-3 (AU 0: STAP-A + 3 FU-A), 4, 5, 6 (AUs 1-3), AU 4 = 7...10.
        var d = H264Depacketizer()
        var out: [H264AccessUnit] = []
        for (i, packet) in packets.enumerated() where i != 8 { out += d.receive(packet) }
        out += d.flush()
        #expect(out.map(\.timestamp) == [0, 3000, 6000, 9000, 24000])
        #expect(out.map(\.nalUnits) == [units[0], units[1], units[2], units[3], units[8]])
        #expect(out.map(\.isKeyframe) == [true, false, false, false, true])
        #expect(d.statistics.packetsLost == 1)
        #expect(d.statistics.accessUnitsDroppedIncomplete == 1)
        #expect(d.statistics.accessUnitsDroppedAwaitingKeyframe == 3)
        #expect(d.statistics.keyframesEmitted == 2 && d.statistics.accessUnitsEmitted == 5)
    }

    @Test("a lost marker packet: the access unit is dropped when the next timestamp shows up")
    func lostMarker() {
        let (units, packets) = Self.stream(count: 3, idrEvery: 2)
        var d = H264Depacketizer()
        var out: [H264AccessUnit] = []
        for (i, packet) in packets.enumerated() where i != 3 { out += d.receive(packet) }  // the last FU-A of AU 0
        #expect(out.isEmpty, "the gap is held in the reorder window")
        out += d.flush()
        // AU 1 (a P slice) may have lost its head too, and has no IDR anyway; AU 2 is a clean IDR.
        #expect(out.map(\.timestamp) == [6000])
        #expect(out.first?.nalUnits == units[2])
        #expect(d.statistics.accessUnitsDroppedIncomplete == 2)
    }

    @Test("after a loss between access units, one that opens with an SPS or AUD is whole; one opening with a slice is not")
    func uncertainStart() {
        // A window of one: every gap is a loss at once.
        var d = H264Depacketizer(configuration: .init(reorderWindow: 1, waitsForFirstKeyframe: false))
        let idrWithSPS = [Table.sps, Table.pps, hex("65 01")]
        let idrAlone = [hex("65 02")]
        let withAUD = [Table.aud, hex("65 03")]
        var sequence: UInt16 = 0
        func send(_ unit: [[UInt8]], timestamp: UInt32, skipBefore: Bool) -> [H264AccessUnit] {
            if skipBefore { sequence &+= 1 }
            let payloads = H264Packetizer().packetize(unit).map(\.bytes)
            let out = feed(payloads, firstSequence: sequence, timestamp: timestamp, into: &d)
            sequence &+= UInt16(payloads.count)
            return out
        }
        #expect(send(idrWithSPS, timestamp: 1, skipBefore: false).count == 1)
        #expect(send(idrAlone, timestamp: 2, skipBefore: true).isEmpty)
        #expect(send(idrWithSPS, timestamp: 3, skipBefore: true).map(\.nalUnits) == [idrWithSPS])
        #expect(send(withAUD, timestamp: 4, skipBefore: true).map(\.nalUnits) == [withAUD])
        #expect(send(idrAlone, timestamp: 5, skipBefore: false).map(\.nalUnits) == [idrAlone])
        #expect(d.statistics.packetsLost == 3 && d.statistics.accessUnitsDroppedIncomplete == 1)
    }

    @Test("joining a stream mid-access-unit: the partial access unit is not handed out")
    func joinMidStream() {
        let (units, packets) = Self.stream(count: 3, idrEvery: 1)
        var d = H264Depacketizer()
        let out = packets.dropFirst().flatMap { d.receive($0) }  // the STAP-A with SPS and PPS is missed
        #expect(out.map(\.timestamp) == [3000, 6000])
        #expect(out.map(\.nalUnits) == Array(units[1...]))
        #expect(d.statistics.accessUnitsDroppedIncomplete == 1)
    }

    @Test("senders without marker bits: access units end at the timestamp change")
    func noMarkers() {
        let (units, packets) = Self.stream(count: 5, markers: false)
        var d = H264Depacketizer()
        let out = packets.flatMap { d.receive($0) }
        #expect(out.map(\.nalUnits) == Array(units[0..<4]), "the last one has nothing after it to end it")
    }

    @Test("by default nothing comes out before the first IDR; the option turns that off")
    func waitsForFirstKeyframe() {
        let (units, packets) = Self.stream(count: 8)
        let late = Array(packets.drop { $0.timestamp < 6000 })
        var d = H264Depacketizer()
        #expect(late.flatMap { d.receive($0) }.map(\.nalUnits) == Array(units[4...]))
        // AU 2 might be missing its start (joined mid-stream); AU 3 is whole but not decodable.
        #expect(d.statistics.accessUnitsDroppedIncomplete == 1)
        #expect(d.statistics.accessUnitsDroppedAwaitingKeyframe == 1)
        var open = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        #expect(late.flatMap { open.receive($0) }.map(\.nalUnits) == Array(units[2...]))
    }

    @Test("reordering and duplicates within the window change nothing; sequence numbers wrap")
    func reorderAndDuplicates() {
        let (units, packets) = Self.stream(count: 12, firstSequence: 65530)
        var shuffled = packets
        var rng = SplitMix64(seed: 3)
        for i in stride(from: 1, to: shuffled.count - 1, by: 2) where Bool.random(using: &rng) { shuffled.swapAt(i, i + 1) }
        shuffled.insert(shuffled[5], at: 9)
        var d = H264Depacketizer()
        let out = shuffled.flatMap { d.receive($0) }
        #expect(out.map(\.nalUnits) == units)
        #expect(d.statistics.packetsLost == 0)
        #expect(d.statistics.packetsDuplicate + d.statistics.packetsLate == 1)
    }

    @Test("a packet after the marker with the same timestamp is dropped and counted")
    func strayAfterMarker() {
        var d = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        #expect(d.receive(RTPPayloadPacket(sequenceNumber: 1, timestamp: 10, marker: true, payload: hex("41 01"))).count == 1)
        #expect(d.receive(RTPPayloadPacket(sequenceNumber: 2, timestamp: 10, marker: true, payload: hex("41 02"))).isEmpty)
        #expect(d.statistics.packetsAfterMarker == 1)
        #expect(d.receive(RTPPayloadPacket(sequenceNumber: 3, timestamp: 20, marker: true, payload: hex("41 03"))).count == 1)
    }

    @Test("parameter sets travel with later access units")
    func parameterSets() {
        let (_, packets) = Self.stream(count: 3)
        var d = H264Depacketizer()
        let out = packets.flatMap { d.receive($0) }
        #expect(out.allSatisfy { $0.sps == Table.sps && $0.pps == Table.pps })
        #expect(d.sps == Table.sps && d.pps == Table.pps)
    }

    @Test("reserved types 0, 30, 31 are ignored; interleaved-mode types break the access unit")
    func payloadTypes() {
        var d = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        var out = feed([hex("1e ff"), hex("65 01")], firstSequence: 1, timestamp: 1, into: &d)
        #expect(out.map(\.nalUnits) == [[hex("65 01")]])
        #expect(d.statistics.packetsIgnored == 1)
        for (i, type) in [UInt8(25), 26, 27, 29].enumerated() {
            out = feed([hex("65 01"), [0x60 | type, 0, 1, 0x65]], firstSequence: UInt16(3 + 2 * i),
                       timestamp: UInt32(100 + i), into: &d)
            #expect(out.isEmpty, "type \(type)")
        }
        #expect(d.statistics.packetsMalformed == 4)
        #expect(d.statistics.packetsLost == 0)
    }

    @Test("an access unit over the size limit is dropped")
    func sizeLimit() {
        var d = H264Depacketizer(configuration: .init(maxAccessUnitSize: 2000, waitsForFirstKeyframe: false))
        let big = H264Packetizer().packetize([nalUnit(header: 0x65, count: 2500)]).map(\.bytes)
        #expect(feed(big, firstSequence: 1, timestamp: 1, into: &d).isEmpty)
        let small = H264Packetizer().packetize([nalUnit(header: 0x65, count: 1500)]).map(\.bytes)
        #expect(feed(small, firstSequence: UInt16(1 + big.count), timestamp: 2, into: &d).count == 1)
        #expect(d.statistics.accessUnitsDroppedIncomplete == 1 && d.statistics.packetsLost == 0)
    }

    @Test("flush gives up on a gap and releases what the window held")
    func flush() {
        let (units, packets) = Self.stream(count: 3, idrEvery: 1)
        var d = H264Depacketizer()
        var out: [H264AccessUnit] = []
        for (i, packet) in packets.enumerated() where i != 1 { out += d.receive(packet) }
        #expect(out.isEmpty)
        #expect(d.bufferedPacketCount == packets.count - 2)
        out = d.flush()
        #expect(out.map(\.timestamp) == [3000, 6000])
        #expect(out.map(\.nalUnits) == Array(units[1...]))
        #expect(d.statistics.packetsLost == 1 && d.bufferedPacketCount == 0)
    }
}
