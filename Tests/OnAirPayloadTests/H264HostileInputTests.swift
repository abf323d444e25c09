import Testing

@testable import OnAirPayload
import OnAirTestSupport

/// Whatever payloads arrive, the depacketizer must not trap, must count what it rejects,
/// and must never hand out an access unit that breaks its own invariants.
@Suite("H.264 depacketizer hostile input")
struct H264HostileInputTests {
    /// A depacketizer that has seen a keyframe, so that later access units would come out.
    private func synced() -> (H264Depacketizer, UInt16) {
        var d = H264Depacketizer()
        let out = feed([H264RoundTripTable.stapA([H264RoundTripTable.sps, H264RoundTripTable.pps, hex("65 01")])],
                       firstSequence: 0, timestamp: 0, into: &d)
        #expect(out.count == 1)
        return (d, 1)
    }

    /// Sends `payloads` as one access unit (marker on the last) and returns what came out.
    private func run(_ payloads: [[UInt8]]) -> (out: [H264AccessUnit], statistics: H264DepacketizerStatistics) {
        var (d, sequence) = synced()
        let out = feed(payloads, firstSequence: sequence, timestamp: 3000, into: &d)
        sequence &+= UInt16(payloads.count)
        return (out, d.statistics)
    }

    static let malformed: [(String, [[UInt8]])] = [
        ("empty payload", [[]]),
        ("F bit set on a single NAL unit", [hex("c1 00")]),
        ("STAP-A with no units", [hex("78")]),
        ("STAP-A size overruns the payload", [hex("78 00 10 67 42")]),
        ("STAP-A with a zero size", [hex("78 00 00 00 02 41 00")]),
        ("STAP-A with one trailing byte", [hex("78 00 02 41 00 00")]),
        ("STAP-A carrying an FU-A", [hex("78 00 03 7c 85 00")]),
        ("STAP-A carrying a NAL unit with F set", [hex("78 00 02 c1 00")]),
        ("truncated FU-A (indicator only)", [hex("7c")]),
        ("FU-A end without a start", [hex("7c 45 00")]),
        ("FU-A middle without a start", [hex("7c 05 00"), hex("7c 45 00")]),
        ("FU-A started twice", [hex("7c 85 00"), hex("7c 85 01"), hex("7c 45 02")]),
        ("FU-A changes type midway", [hex("7c 85 00"), hex("7c 41 01")]),
        ("FU-A carrying type 24", [hex("7c 98 00"), hex("7c 58 01")]),
        ("FU-A never ended", [hex("7c 85 00"), hex("7c 05 01")]),
        ("single NAL unit inside an unfinished FU-A", [hex("7c 85 00"), hex("41 00"), hex("7c 45 01")]),
        ("STAP-B (interleaved mode only)", [hex("79 00 00 00 02 41 00")]),
        ("FU-B (interleaved mode only)", [hex("7d 85 00 00 01")]),
    ]

    @Test("malformed RFC 6184 payloads drop their access unit", arguments: malformed.indices)
    func malformedPayload(_ index: Int) {
        let (name, payloads) = Self.malformed[index]
        let (out, statistics) = run(payloads)
        #expect(out.isEmpty, "\(name)")
        #expect(statistics.accessUnitsDroppedIncomplete == 1, "\(name)")
        #expect(statistics.accessUnitsEmitted == 1, "\(name): only the first keyframe")
    }

    @Test("after a malformed payload, non-IDR access units wait for the next keyframe")
    func resyncAfterMalformed() {
        var (d, _) = synced()
        var out = feed([hex("78 00 10 67 42")], firstSequence: 1, timestamp: 3000, into: &d)
        out += feed([hex("41 01")], firstSequence: 2, timestamp: 6000, into: &d)
        #expect(out.isEmpty)
        out = feed([hex("65 02")], firstSequence: 3, timestamp: 9000, into: &d)
        #expect(out.map(\.isKeyframe) == [true])
        #expect(d.statistics.packetsMalformed == 1 && d.statistics.accessUnitsDroppedAwaitingKeyframe == 1)
    }

    @Test("random payloads, sequence numbers and timestamps never trap")
    func randomPackets() {
        var rng = SplitMix64(seed: 11)
        var d = H264Depacketizer(configuration: .init(reorderWindow: 16, maxAccessUnitSize: 200_000))
        var emitted = 0
        for _ in 0..<30_000 {
            let count = Int.random(in: 0...40, using: &rng)
            var payload = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Bias towards the structures that have rules: STAP-A and FU-A headers.
            if !payload.isEmpty && Bool.random(using: &rng) { payload[0] = [0x78, 0x7c, 0x5c, 0x65][Int.random(in: 0...3, using: &rng)] }
            let packet = RTPPayloadPacket(sequenceNumber: UInt16.random(in: 0...20, using: &rng) &+ UInt16(truncatingIfNeeded: emitted),
                                          timestamp: UInt32.random(in: 0...3, using: &rng) * 3000,
                                          marker: Bool.random(using: &rng), payload: payload)
            d.receive(packet) { unit in
                emitted += 1
                #expect(!unit.nalUnits.isEmpty && unit.nalUnits.allSatisfy { !$0.isEmpty && $0[0] & 0x80 == 0 })
                #expect(unit.isKeyframe == unit.containsIDR)
            }
        }
        _ = d.flush()
        #expect(d.statistics.packetsReceived == 30_000)
        #expect(d.statistics.packetsMalformed > 0)
    }

    @Test("mutated and truncated payloads of a real stream never trap")
    func mutatedRealPayloads() throws {
        let stream = try BulkStream.x264.get()
        var rng = SplitMix64(seed: 12)
        var d = H264Depacketizer()
        var sequence: UInt16 = 0
        for (k, unit) in stream.accessUnits.prefix(300).enumerated() {
            for payload in H264Packetizer().packetize(unit) {
                var bytes = payload.bytes
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
                case 1: bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                case 2: bytes[0] = UInt8.random(in: 0...255, using: &rng)
                default: break
                }
                let packet = RTPPayloadPacket(sequenceNumber: sequence, timestamp: UInt32(k) * 3000,
                                              marker: payload.isLastOfAccessUnit, payload: bytes)
                sequence &+= 1
                d.receive(packet) { unit in #expect(unit.isKeyframe == unit.containsIDR) }
            }
        }
        #expect(d.statistics.packetsMalformed > 0)
    }

    @Test("RTP packets of random bytes either parse or throw")
    func randomRTP() {
        var rng = SplitMix64(seed: 13)
        for _ in 0..<20_000 {
            var bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty { bytes[0] = bytes[0] & 0x3F | 0x80 }
            if let packet = try? RTPPayloadPacket(parsing: bytes) {
                #expect(packet.payload.endIndex <= bytes.count)
            }
        }
    }
}
