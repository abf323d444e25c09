import OnAirWire
import Testing

/// RFC 4571 framing (ICE-TCP, RFC 6544 §3): packets come out whole and in order whatever
/// the TCP reads' split; a peer cannot make the deframer hold more than one packet.
@Suite("RFC 4571 deframing")
struct RFC4571DeframerTests {
    static func framed(_ packets: [[UInt8]]) -> [UInt8] {
        packets.flatMap { packet -> [UInt8] in
            let (high, low) = RFC4571Deframer.header(length: packet.count)
            return [high, low] + packet
        }
    }

    static func deframe(_ stream: [UInt8], splits: [Int], maximumFrame: Int = 2_048) -> (frames: [[UInt8]], oversize: UInt64) {
        var deframer = RFC4571Deframer(maximumFrame: maximumFrame)
        var frames: [[UInt8]] = []
        var start = 0
        for end in (splits.filter { $0 > 0 && $0 < stream.count }.sorted() + [stream.count]) {
            stream[start..<end].withUnsafeBytes { deframer.feed($0) { frames.append(Array($0)) } }
            start = end
        }
        return (frames, deframer.oversizeFrames)
    }

    @Test("packets come out whole and in order, however the reads split them")
    func anySplit() {
        var random = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let packets = (0..<Int.random(in: 1...12, using: &random)).map { index in
                (0..<Int.random(in: 1...1_500, using: &random)).map { UInt8(truncatingIfNeeded: $0 &+ index &* 7 &+ round) }
            }
            let stream = Self.framed(packets)
            let splits = (0..<Int.random(in: 0...20, using: &random)).map { _ in Int.random(in: 0...stream.count, using: &random) }
            let result = Self.deframe(stream, splits: splits)
            #expect(result.frames == packets, "round \(round), splits \(splits.sorted())")
            #expect(result.oversize == 0)
        }
        // A byte at a time, the length fields split too.
        let packets: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 9, count: 300), [4]]
        let stream = Self.framed(packets)
        #expect(Self.deframe(stream, splits: Array(0..<stream.count)).frames == packets.filter { !$0.isEmpty })
    }

    @Test("a packet longer than the limit is skipped and counted; the next one comes out")
    func oversize() {
        let packets: [[UInt8]] = [[7, 7], Array(repeating: 1, count: 5_000), [8, 8, 8]]
        let stream = Self.framed(packets)
        for splits in [[], [1], [3, 4_000, 5_004], Array(stride(from: 0, to: stream.count, by: 97))] {
            let result = Self.deframe(stream, splits: splits, maximumFrame: 1_500)
            #expect(result.frames == [[7, 7], [8, 8, 8]])
            #expect(result.oversize == 1)
        }
    }

    @Test("what is held between reads is at most one packet")
    func holdsAtMostOnePacket() {
        var deframer = RFC4571Deframer(maximumFrame: 1_500)
        let stream = Self.framed([Array(repeating: 5, count: 1_400)])
        stream[0..<900].withUnsafeBytes { deframer.feed($0) { _ in Issue.record("not complete yet") } }
        #expect(deframer.buffered == 898)
        var got = 0
        stream[900...].withUnsafeBytes { deframer.feed($0) { got = $0.count } }
        #expect(got == 1_400 && deframer.buffered == 0)
        // A hostile length (65,535) with nothing after it: nothing is held for it.
        [0xFF, 0xFF, 1, 2, 3].withUnsafeBytes { deframer.feed($0) { _ in Issue.record("skipped") } }
        #expect(deframer.buffered == 0 && deframer.oversizeFrames == 1)
    }
}
