import Testing

@testable import OnAirPayload
import OnAirTestSupport

@Suite("RTP reorder buffer (RFC 3550 §5.1 sequence numbers)")
struct RTPReorderBufferTests {
    private func packet(_ sequence: UInt16) -> RTPPayloadPacket {
        RTPPayloadPacket(sequenceNumber: sequence, timestamp: 0, marker: false, payload: [UInt8(truncatingIfNeeded: sequence)])
    }

    /// Inserts each sequence number and records deliveries as (sequence, lostBefore).
    private func run(_ buffer: inout RTPReorderBuffer, _ sequences: [UInt16]) -> (delivered: [[Int]], dispositions: [RTPReorderBuffer.Disposition]) {
        var delivered: [[Int]] = []
        var dispositions: [RTPReorderBuffer.Disposition] = []
        for sequence in sequences {
            dispositions.append(buffer.insert(packet(sequence)) { delivered.append([Int($0.sequenceNumber), $1]) })
        }
        return (delivered, dispositions)
    }

    @Test("in-order packets pass straight through, across the 65535 → 0 wrap")
    func inOrder() {
        var buffer = RTPReorderBuffer(window: 8)
        let (delivered, _) = run(&buffer, [65533, 65534, 65535, 0, 1])
        #expect(delivered == [[65533, 0], [65534, 0], [65535, 0], [0, 0], [1, 0]])
        #expect(buffer.bufferedCount == 0)
    }

    @Test("a swapped pair is put back in order")
    func swapped() {
        var buffer = RTPReorderBuffer(window: 8)
        let (delivered, _) = run(&buffer, [10, 12, 11, 13, 15])
        #expect(delivered == [[10, 0], [11, 0], [12, 0], [13, 0]])
        #expect(buffer.bufferedCount == 1)
    }

    @Test("a gap is held until a packet a whole window past it arrives, then counted as lost")
    func gapGivenUp() {
        var buffer = RTPReorderBuffer(window: 4)
        var (delivered, _) = run(&buffer, [0, 2, 3, 4])
        #expect(delivered == [[0, 0]])
        #expect(buffer.bufferedCount == 3)
        (delivered, _) = run(&buffer, [5])
        #expect(delivered == [[2, 1], [3, 0], [4, 0], [5, 0]])
    }

    @Test("duplicates of held packets and packets older than the next expected are rejected")
    func duplicatesAndLate() {
        var buffer = RTPReorderBuffer(window: 8)
        let (delivered, dispositions) = run(&buffer, [100, 102, 102, 100, 99, 101])
        #expect(dispositions == [.accepted, .accepted, .duplicate, .late, .late, .accepted])
        #expect(delivered == [[100, 0], [101, 0], [102, 0]])
    }

    @Test("flush delivers what is held, counting the gaps, and continues after it")
    func flush() {
        var buffer = RTPReorderBuffer(window: 16)
        var (delivered, _) = run(&buffer, [1, 3, 6])
        buffer.flush { delivered.append([Int($0.sequenceNumber), $1]) }
        #expect(delivered == [[1, 0], [3, 1], [6, 2]])
        (delivered, _) = run(&buffer, [7, 5])
        #expect(delivered == [[7, 0]])
    }

    @Test("a jump far ahead gives up on everything before the new window")
    func jumpAhead() {
        var buffer = RTPReorderBuffer(window: 4)
        var (delivered, _) = run(&buffer, [0, 2, 1000])
        #expect(delivered == [[0, 0], [2, 1]])
        (delivered, _) = run(&buffer, [1001, 1002, 1003])
        #expect(delivered == [[1000, 997], [1001, 0], [1002, 0], [1003, 0]])
    }

    @Test("a sender that jumps backwards is followed after a run of 16 late packets")
    func resync() {
        var buffer = RTPReorderBuffer(window: 4)
        let backwards = (0..<17).map { UInt16(30000 + $0) }
        let (delivered, dispositions) = run(&buffer, [40000, 40001] + backwards)
        #expect(dispositions == [.accepted, .accepted] + Array(repeating: .late, count: 15) + [.accepted, .accepted])
        #expect(delivered == [[40000, 0], [40001, 0], [30015, 1], [30016, 0]])
    }

    @Test("a window of one never holds anything")
    func windowOfOne() {
        var buffer = RTPReorderBuffer(window: 1)
        let (delivered, _) = run(&buffer, [5, 7, 6, 8])
        #expect(delivered == [[5, 0], [7, 1], [8, 0]])
        #expect(buffer.bufferedCount == 0)
    }

    @Test("random arrivals within the window: all delivered once, in order, none lost")
    func randomWithinWindow() {
        let (delivered, lost) = randomArrivals(fraction: 1, maxDisplacement: 30, window: 32, seed: 41)
        #expect(delivered == Array(0..<20_000))
        #expect(lost == 0)
    }

    @Test("random arrivals beyond the window: each delivered at most once, in increasing order")
    func randomBeyondWindow() {
        let (delivered, lost) = randomArrivals(fraction: 0.1, maxDisplacement: 200, window: 32, seed: 42)
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 < $1 })
        // Every sequence number is either delivered or counted lost, once.
        #expect(delivered.count + lost == Int(delivered.last! - delivered.first!) + 1)
        #expect(delivered.count > 17_000 && delivered.count < 20_000)
    }

    /// Sequence numbers 0..<20000 (wrapping past 65535), a `fraction` of them displaced
    /// forward by up to `maxDisplacement`.
    private func randomArrivals(fraction: Double, maxDisplacement: Int, window: Int, seed: UInt64) -> (delivered: [Int64], lost: Int) {
        var rng = SplitMix64(seed: seed)
        let order = (0..<20_000).map { i -> (Int, Int) in
            let displaced = i > 0 && Double.random(in: 0..<1, using: &rng) < fraction  // the first one opens the sequence
            return (i + (displaced ? Int.random(in: 0...maxDisplacement, using: &rng) : 0), i)
        }.sorted { $0 < $1 }
        var buffer = RTPReorderBuffer(window: window)
        var delivered: [Int64] = []
        var lost = 0
        var unwrap = SequenceNumberUnwrapperForTests()
        let start = order[0].1
        for (_, i) in order {
            buffer.insert(packet(UInt16(truncatingIfNeeded: 60_000 + i))) { packet, lostBefore in
                delivered.append(unwrap.unwrap(packet.sequenceNumber) - 60_000 + Int64(start))
                lost += lostBefore
            }
        }
        buffer.flush { packet, lostBefore in
            delivered.append(unwrap.unwrap(packet.sequenceNumber) - 60_000 + Int64(start))
            lost += lostBefore
        }
        return (delivered, lost)
    }
}

/// Extends delivered sequence numbers for the ordering check (a plain re-statement of
/// RFC 3550 §A.1 for the test, independent of the buffer).
struct SequenceNumberUnwrapperForTests {
    private var last: Int64?
    mutating func unwrap(_ sequence: UInt16) -> Int64 {
        guard let last else {
            self.last = Int64(sequence)
            return Int64(sequence)
        }
        let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: last)))
        self.last = last + delta
        return last + delta
    }
}
