import Testing

@testable import OnAirPayload
import OnAirTestSupport

/// Thousands of real x264 access units through packetizer → impaired network →
/// depacketizer. Whatever the losses, reordering and duplicates: no crash, every access
/// unit handed out is byte-identical to the original, every keyframe is a complete
/// original IDR access unit, and between keyframes nothing is skipped (a skipped access
/// unit would leave later pictures without their references).
@Suite("H.264 depacketizer under loss and reordering (real x264 stream)")
struct H264LossTests {
    struct Impairment: Sendable, CustomTestStringConvertible {
        var name: String
        var seed: UInt64
        var loss = 0.0
        var maxBurst = 1
        var reorder = 0.0
        var maxDisplacement = 0
        var duplicate = 0.0
        var keepsAUD = true
        var window = RTPReorderBuffer.defaultWindow
        /// Every displacement fits the window, so the outcome is exactly predictable.
        var isExact: Bool { maxDisplacement + 1 < window }
        var testDescription: String { name }
    }

    static let impairments: [Impairment] = [
        Impairment(name: "clean network", seed: 1),
        Impairment(name: "reordering and duplicates, no loss", seed: 2, reorder: 0.2, maxDisplacement: 12, duplicate: 0.05),
        Impairment(name: "1% random loss", seed: 3, loss: 0.01),
        Impairment(name: "3% loss in bursts of up to 5, with reordering", seed: 4, loss: 0.03, maxBurst: 5,
                   reorder: 0.1, maxDisplacement: 20, duplicate: 0.02),
        Impairment(name: "2% loss without AUDs (IDRs open with the SPS)", seed: 5, loss: 0.02, reorder: 0.05,
                   maxDisplacement: 6, keepsAUD: false),
        Impairment(name: "20% loss", seed: 6, loss: 0.2, maxBurst: 3, reorder: 0.1, maxDisplacement: 10),
        Impairment(name: "window of 1 (every gap a loss at once), 1% loss", seed: 7, loss: 0.01, window: 1),
        Impairment(name: "reordering far beyond the window", seed: 8, loss: 0.01, reorder: 0.05, maxDisplacement: 300,
                   duplicate: 0.02),
    ]

    @Test("no corrupt access unit is ever handed out", arguments: impairments)
    func impaired(_ impairment: Impairment) throws {
        let stream = try BulkStream.x264.get()
        let units = impairment.keepsAUD
            ? stream.accessUnits
            : stream.accessUnits.map { $0.filter { H264NALUnitHeader($0[0]).type != .accessUnitDelimiter } }
        let isIDR = units.map(BulkStream.isIDR)
        #expect(units.count == BulkStream.frames)

        // Packetize: sequence numbers and timestamps both wrap during the stream.
        var packets: [RTPPayloadPacket] = []
        var unitOfPacket: [Int] = []
        let packetizer = H264Packetizer()
        for (k, unit) in units.enumerated() {
            for payload in packetizer.packetize(unit) {
                packets.append(RTPPayloadPacket(sequenceNumber: UInt16(truncatingIfNeeded: 65_000 + packets.count),
                                                timestamp: 0xFFFF_0000 &+ UInt32(k) * 3000,
                                                marker: payload.isLastOfAccessUnit, payload: payload.bytes))
                unitOfPacket.append(k)
            }
        }
        let kinds = Set(packets.map { $0.payload[$0.payload.startIndex] & 0x1F })
        #expect(kinds.contains(24) && kinds.contains(28) && kinds.contains(1), "STAP-A, FU-A and single NAL packets all occur")
        let unitOfTimestamp = Dictionary(uniqueKeysWithValues: units.indices.map { (0xFFFF_0000 &+ UInt32($0) * 3000, $0) })

        // The network: bursts of loss, displacement forward in time, duplicates.
        var rng = SplitMix64(seed: impairment.seed)
        var lost = Set<Int>()
        var arrivals: [(key: Double, order: Int, packet: RTPPayloadPacket)] = []
        var duplicates = 0
        var burstLeft = 0
        for (i, packet) in packets.enumerated() {
            if burstLeft > 0 || Double.random(in: 0..<1, using: &rng) < impairment.loss {
                burstLeft = burstLeft > 0 ? burstLeft - 1 : Int.random(in: 1...impairment.maxBurst, using: &rng) - 1
                lost.insert(i)
                continue
            }
            var key = Double(i)
            if Double.random(in: 0..<1, using: &rng) < impairment.reorder {
                key += Double.random(in: 0...Double(impairment.maxDisplacement), using: &rng)
            }
            arrivals.append((key, arrivals.count, packet))
            if Double.random(in: 0..<1, using: &rng) < impairment.duplicate {
                arrivals.append((key + Double.random(in: 0...Double(impairment.maxDisplacement + 1), using: &rng),
                                 arrivals.count, packet))
                duplicates += 1
            }
        }
        arrivals.sort { ($0.key, $0.order) < ($1.key, $1.order) }

        var depacketizer = H264Depacketizer(configuration: .init(reorderWindow: impairment.window))
        var emitted: [H264AccessUnit] = []
        for arrival in arrivals { depacketizer.receive(arrival.packet) { emitted.append($0) } }
        emitted += depacketizer.flush()

        // Byte-exact, in order, keyframes only where the original has an IDR.
        let indices = emitted.compactMap { unitOfTimestamp[$0.timestamp] }
        #expect(indices.count == emitted.count, "every timestamp is an original one")
        #expect(zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 }, "in order, no repeats")
        var corrupt = 0
        for (unit, k) in zip(emitted, indices) {
            if unit.nalUnits != units[k] || unit.isKeyframe != isIDR[k] { corrupt += 1 }
        }
        #expect(corrupt == 0)
        #expect(emitted.first?.isKeyframe ?? true)
        // Between keyframes, consecutive: a gap means a picture lost its reference.
        let skipsReference = zip(emitted.dropFirst(), zip(indices, indices.dropFirst())).contains { unit, pair in
            !unit.isKeyframe && pair.1 != pair.0 + 1
        }
        #expect(!skipsReference)
        let statistics = depacketizer.statistics
        #expect(statistics.accessUnitsEmitted == emitted.count)
        #expect(statistics.keyframesEmitted == emitted.filter(\.isKeyframe).count)
        #expect(statistics.packetsReceived == arrivals.count)
        #expect(!emitted.isEmpty)

        guard impairment.isExact else { return }
        // Exactly predictable: an access unit comes out iff none of its packets was lost and
        // it is an IDR or the one before it came out.
        var damaged = Set<Int>()
        for i in lost { damaged.insert(unitOfPacket[i]) }
        var expected: [Int] = []
        var synced = false
        for k in units.indices {
            synced = !damaged.contains(k) && (isIDR[k] || synced)
            if synced { expected.append(k) }
        }
        #expect(indices == expected)
        // The sequence starts at the first packet to arrive; anything older arriving later is late.
        let firstArrived = Int(arrivals[0].packet.sequenceNumber &- UInt16(65_000))
        let lastArrived = packets.indices.last { !lost.contains($0) } ?? 0
        #expect(statistics.packetsLost == lost.filter { $0 > firstArrived && $0 < lastArrived }.count)
        let olderThanFirst = (0..<firstArrived).filter { !lost.contains($0) }.count
        #expect(statistics.packetsDuplicate + statistics.packetsLate == duplicates + olderThanFirst)
        #expect(statistics.packetsMalformed == 0)
        if lost.isEmpty { #expect(emitted.count == units.count) }
    }
}
