import Testing

@testable import OnAirBroadcast

@Suite("PacketPacer: a keyframe spread over time, never held too long")
struct PacketPacerTests {
    private func enqueue(_ pacer: inout PacketPacer, packets: Int, size: Int) {
        let bytes = [UInt8](repeating: 0xAB, count: size)
        for index in 0..<packets {
            var packet = bytes
            packet[0] = UInt8(index)
            _ = packet.withUnsafeBytes { pacer.enqueue($0, rtpTimestamp: 9, mediaTime: 7, now: 1_000_000_000) }
        }
    }

    @Test("at 2.5 x 2 Mbit/s, 1000-byte packets leave 1.6 ms apart, in order, bytes intact")
    func spacing() {
        var pacer = PacketPacer()
        pacer.maximumQueueDelay = 10_000_000_000  // isolate the pacing rate
        pacer.batchWindow = 0
        enqueue(&pacer, packets: 10, size: 1000)
        var released: [(UInt64, UInt8)] = []
        var now: UInt64 = 1_000_000_000
        while !pacer.isEmpty {
            pacer.release(now: now, bitrate: 2_000_000) { slot, length, _, timestamp, mediaTime in
                #expect(length == 1000 && timestamp == 9 && mediaTime == 7 && slot[1] == 0xAB)
                released.append((now, slot[0]))
            }
            now += 100_000
        }
        #expect(released.map(\.1) == Array(0..<10))
        #expect(released.first?.0 == 1_000_000_000, "the first packet leaves at once")
        let gaps = zip(released.dropFirst(), released).map { Int($0.0 - $1.0) }
        #expect(gaps.allSatisfy { (1_550_000...1_700_000).contains($0) }, "\(gaps)")
    }

    @Test("packets due within the 5 ms batch window leave together; the next batch waits")
    func batching() {
        var pacer = PacketPacer()
        enqueue(&pacer, packets: 10, size: 1000)  // 1.6 ms apart at 2.5 x 2 Mbit/s
        var first = 0
        pacer.release(now: 1_000_000_000, bitrate: 2_000_000) { _, _, _, _, _ in first += 1 }
        #expect(first == 4, "due at 0, 1.6, 3.2 and 4.8 ms: within 5 ms")
        let next = pacer.nextDeadline
        #expect(next == 1_000_000_000 + 6_400_000 - 5_000_000, "woken 5 ms before the next one is due")
    }

    @Test("a big burst at a low bitrate still drains within the maximum queue delay")
    func boundedDelay() {
        var pacer = PacketPacer()
        pacer.maximumQueueDelay = 66_000_000
        enqueue(&pacer, packets: 100, size: 1200)  // 960 kbit: 7.7 s at 2.5 x 50 kbit/s
        var now: UInt64 = 1_000_000_000
        while !pacer.isEmpty && now < 2_000_000_000 {
            pacer.release(now: now, bitrate: 50_000) { _, _, _, _, _ in }
            now += 1_000_000
        }
        let drained = pacer.isEmpty
        #expect(drained)
        #expect(now - 1_000_000_000 <= 68_000_000, "drained after \((now - 1_000_000_000) / 1_000_000) ms, limit 66 ms")
    }

    @Test("the queue delay is the queued bytes at the pacing rate, and falls as packets leave")
    func queueDelay() {
        var pacer = PacketPacer()
        pacer.batchWindow = 0
        #expect(pacer.queueDelay(now: 1_000_000_000, bitrate: 1_000_000) == 0)
        enqueue(&pacer, packets: 25, size: 1250)  // 250 kbit at 2.5 Mbit/s: 100 ms
        #expect(pacer.queuedBytes == 31_250)
        #expect(pacer.queueDelay(now: 1_000_000_000, bitrate: 1_000_000) == 100_000_000)
        pacer.release(now: 1_000_000_000, bitrate: 1_000_000) { _, _, _, _, _ in }
        // One packet left at once; the pacing clock now leads by its 4 ms.
        #expect(pacer.count == 24 && pacer.queueDelay(now: 1_000_000_000, bitrate: 1_000_000) == 100_000_000)
        #expect(pacer.queueDelay(now: 1_004_000_000, bitrate: 1_000_000) == 96_000_000)
    }

    @Test("a full queue refuses (the caller sends unpaced) and counts it")
    func overflow() {
        var pacer = PacketPacer(capacity: 4)
        enqueue(&pacer, packets: 6, size: 100)
        let (queued, overflows) = (pacer.count, pacer.overflows)
        #expect(queued == 4 && overflows == 2)
    }
}
