import OnAirWire
import Testing

@testable import OnAirRTP
import OnAirTestSupport

@Suite("Transport-wide congestion control feedback")
struct TransportWideFeedbackTests {
    /// Base 100, 4 statuses, reference time 1 (64 ms), feedback count 2; one two-bit
    /// vector chunk [small, not received, large, small, (padding symbols)]; deltas 0x10,
    /// -1 (large), 0x04; two zero octets to 32 bits.
    let handBuilt = hex("""
        8f cd 00 06 00 00 00 01 12 34 ab cd 00 64 00 04 00 00 01 02
        d2 40 10 ff ff 04 00 00
        """)

    @Test func parseHandBuiltPacket() throws {
        guard case .transportWideFeedback(let feedback) = try parseSingle(handBuilt) else {
            Issue.record("not transport-cc")
            return
        }
        #expect(feedback.senderSSRC == 1 && feedback.mediaSSRC == 0x1234_ABCD)
        #expect(feedback.baseSequenceNumber == 100)
        #expect(feedback.referenceTime == 1)
        #expect(feedback.feedbackPacketCount == 2)
        #expect(feedback.receiveDeltas == [16, nil, -1, 4])
        #expect(feedback.packets == [
            .init(sequenceNumber: 100, receiveDelta: 16),
            .init(sequenceNumber: 101, receiveDelta: nil),
            .init(sequenceNumber: 102, receiveDelta: -1),
            .init(sequenceNumber: 103, receiveDelta: 4),
        ])
        #expect(feedback.packets[0].receiveDeltaMicroseconds == 4000)
        // 64 ms + 4 ms, (lost), − 0.25 ms, + 1 ms.
        #expect(feedback.arrivalTimesMicroseconds == [68_000, nil, 67_750, 68_750])
    }

    @Test func buildHandBuiltPacket() {
        let feedback = TransportWideFeedback(senderSSRC: 1, mediaSSRC: 0x1234_ABCD, baseSequenceNumber: 100,
                                             referenceTime: 1, feedbackPacketCount: 2, receiveDeltas: [16, nil, -1, 4])
        #expect(feedback.serialized() == handBuilt)
        #expect(feedback.serializedSize == 28)
    }

    @Test func chunkExamplesFromTheDraft() {
        // §3.1.3: a run of 221 "packet not received".
        #expect(TransportWideFeedbackChunk(rawValue: 0x00DD) == .runLength(symbol: 0, length: 221))
        #expect(TransportWideFeedbackChunk.runLength(symbol: 0, length: 221).rawValue == 0x00DD)
        // §3.1.4: one-bit vector: not received, 5 received, 3 not, 3 received, 2 not.
        let oneBit: [UInt8] = [0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0]
        #expect(TransportWideFeedbackChunk(rawValue: 0x9F1C) == .oneBitVector(oneBit))
        #expect(TransportWideFeedbackChunk.oneBitVector(oneBit).rawValue == 0x9F1C)
        // Two-bit vector: not received, small, large, then not received.
        #expect(TransportWideFeedbackChunk(rawValue: 0xC600) == .twoBitVector([0, 1, 2, 0, 0, 0, 0]))
        #expect(TransportWideFeedbackChunk.twoBitVector([0, 1, 2, 0, 0, 0, 0]).rawValue == 0xC600)
    }

    @Test func largeRunLengthsAndStatusCountLimit() throws {
        // 300 packets received with small deltas of 1 tick: a single run length chunk.
        let feedback = TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65_500,
                                             referenceTime: -5, feedbackPacketCount: 255,
                                             receiveDeltas: Array(repeating: 1, count: 300))
        let bytes = feedback.serialized()
        #expect(Array(bytes[20..<22]) == [0x21, 0x2C])  // T=0, S=01, length 300
        #expect(bytes.count == (20 + 2 + 300 + 3) / 4 * 4)
        #expect(try RTCPPacket.parseCompound(bytes) == [.transportWideFeedback(feedback)])
        #expect(feedback.packets.last?.sequenceNumber == 65_500 &+ 299)
    }

    @Test func mixedChunkTypesRoundTrip() throws {
        var deltas: [Int16?] = Array(repeating: 4, count: 20)                  // run of small
        deltas += (0..<14).map { $0 % 3 == 0 ? nil : 2 }                      // small/lost mix
        deltas += [300, nil, 1, -20, nil, 7, 1000]                           // needs two bits
        deltas += Array(repeating: nil, count: 9) + [-1]                     // run with a large
        deltas += [5, 6]                                                     // short tail
        let feedback = TransportWideFeedback(senderSSRC: 9, mediaSSRC: 10, baseSequenceNumber: 65_530,
                                             referenceTime: 0x7F_FFFF, feedbackPacketCount: 7, receiveDeltas: deltas)
        let bytes = feedback.serialized()
        #expect(bytes.count == feedback.serializedSize && bytes.count % 4 == 0)
        #expect(try RTCPPacket.parseCompound(bytes) == [.transportWideFeedback(feedback)])

        // Read the chunks back to see that every kind was used.
        var kinds: Set<String> = []
        var symbols = 0
        var offset = 20
        while symbols < deltas.count {
            let chunk = TransportWideFeedbackChunk(rawValue: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]))
            switch chunk {
            case .runLength(_, let length): kinds.insert("run"); symbols += length
            case .oneBitVector: kinds.insert("one-bit"); symbols += 14
            case .twoBitVector: kinds.insert("two-bit"); symbols += 7
            }
            offset += 2
        }
        #expect(kinds == ["run", "one-bit", "two-bit"])
    }

    @Test func randomFeedbackRoundTrips() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let count = Int.random(in: 0...400, using: &rng)
            let lossRate = Double.random(in: 0...1, using: &rng)
            let deltas: [Int16?] = (0..<count).map { _ in
                if Double.random(in: 0...1, using: &rng) < lossRate { return nil }
                return Bool.random(using: &rng) ? Int16.random(in: 0...255, using: &rng) : Int16.random(in: .min ... .max, using: &rng)
            }
            let feedback = TransportWideFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: UInt16.random(in: 0...UInt16.max, using: &rng),
                referenceTime: Int32.random(in: TransportWideFeedback.referenceTimeRange, using: &rng),
                feedbackPacketCount: UInt8.random(in: 0...255, using: &rng), receiveDeltas: deltas)
            let bytes = feedback.serialized()
            #expect(bytes.count == feedback.serializedSize)
            #expect(try RTCPPacket.parseCompound(bytes) == [.transportWideFeedback(feedback)])
        }
    }

    @Test func buildFromArrivalTimes() throws {
        let base: Int64 = 10 * 64_000
        let arrivals: [Int64?] = [base + 1_000, nil, base + 1_500, base + 71_500, base + 70_500, base + 70_510]
        let feedback = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0xFFFE,
                                                 feedbackPacketCount: 3, arrivalTimesMicroseconds: arrivals)
        #expect(feedback.referenceTime == 10)
        #expect(feedback.receiveDeltas == [4, nil, 2, 280, -4, 0])
        #expect(feedback.arrivalTimesMicroseconds == [base + 1_000, nil, base + 1_500, base + 71_500, base + 70_500, base + 70_500])
        #expect(feedback.packets.map(\.sequenceNumber) == [0xFFFE, 0xFFFF, 0, 1, 2, 3])
        #expect(try RTCPPacket.parseCompound(feedback.serialized()) == [.transportWideFeedback(feedback)])
    }

    @Test func arrivalGapTooLargeThrows() {
        #expect(throws: WireError.self) {
            try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, feedbackPacketCount: 0,
                                      arrivalTimesMicroseconds: [0, 9_000_000])
        }
    }

    @Test func malformedFeedbackThrows() {
        // Status count 65535 with no chunks.
        #expect(throws: WireError.self) {
            try RTCPPacket.parseCompound(hex("8f cd 00 04 00 00 00 01 00 00 00 02 00 00 ff ff 00 00 00 00"))
        }
        // Chunk says one small delta, but RTCP padding (P=1, 2 octets) leaves no delta byte.
        #expect(throws: WireError.self) {
            try RTCPPacket.parseCompound(hex("af cd 00 05 00 00 00 01 00 00 00 02 00 00 00 01 00 00 00 00 20 01 00 02"))
        }
        // Run length with the reserved symbol 3.
        #expect(throws: WireError.self) {
            try RTCPPacket.parseCompound(hex("8f cd 00 05 00 00 00 01 00 00 00 02 00 00 00 01 00 00 00 00 60 01 00 00"))
        }
    }
}
