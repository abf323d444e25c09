import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("Retransmission cache")
struct RTPPacketCacheTests {
    private func packet(_ seq: UInt16, size: Int = 20) -> [UInt8] {
        RTPPacketBuilder(payloadType: 96, sequenceNumber: seq, timestamp: 0, ssrc: 1)
            .build(payload: [UInt8](repeating: UInt8(truncatingIfNeeded: seq), count: size))
    }

    @Test func storeAndLookup() {
        var cache = RTPPacketCache(capacity: 16, maxPacketSize: 100)
        let stored = cache.store(packet(5), sequenceNumber: 5)
        #expect(stored)
        #expect(cache.packet(sequenceNumber: 5) == packet(5))
        #expect(cache.packet(sequenceNumber: 6) == nil)
        #expect(cache.contains(sequenceNumber: 5))
        #expect(cache.withPacket(sequenceNumber: 5) { $0.count } == 32)
    }

    @Test func capacityRoundsUpToAPowerOfTwo() {
        #expect(RTPPacketCache(capacity: 1000).capacity == 1024)
        #expect(RTPPacketCache(capacity: 0, maxPacketSize: 10).capacity == 1)
    }

    @Test func oldEntriesAreOverwritten() {
        var cache = RTPPacketCache(capacity: 1024, maxPacketSize: 100)
        for seq in 0..<2048 { cache.store(packet(UInt16(seq)), sequenceNumber: UInt16(seq)) }
        #expect(cache.packet(sequenceNumber: 0) == nil)
        #expect(cache.packet(sequenceNumber: 1023) == nil)
        #expect(cache.packet(sequenceNumber: 1024) == packet(1024))
        #expect(cache.packet(sequenceNumber: 2047) == packet(2047))
    }

    @Test func lookupAcrossTheWrap() {
        var cache = RTPPacketCache(capacity: 64, maxPacketSize: 100)
        for i in 0..<20 {
            let seq = 65530 &+ UInt16(i)
            cache.store(packet(seq), sequenceNumber: seq)
        }
        #expect(cache.packet(sequenceNumber: 65530) == packet(65530))
        #expect(cache.packet(sequenceNumber: 13) == packet(13))
        #expect(cache.packet(sequenceNumber: 14) == nil)
    }

    @Test func aPacketFrom65536AgoIsNotReturned() {
        var cache = RTPPacketCache(capacity: 16, maxPacketSize: 100)
        cache.store(packet(7), sequenceNumber: 7)
        // Move on by three quarters of the space in steps, never storing into slot 7 again.
        var seq: UInt16 = 7
        for _ in 0..<3 {
            seq &+= 16_384 + 1
            cache.store(packet(seq), sequenceNumber: seq)
        }
        for _ in 0..<2 {
            seq &+= 8_000
            cache.store(packet(seq), sequenceNumber: seq)
        }
        #expect(cache.packet(sequenceNumber: 7) == nil)
    }

    @Test func reorderedStoresAreFound() {
        var cache = RTPPacketCache(capacity: 32, maxPacketSize: 100)
        for seq: UInt16 in [10, 12, 11, 14, 13] { cache.store(packet(seq), sequenceNumber: seq) }
        for seq: UInt16 in 10...14 { #expect(cache.packet(sequenceNumber: seq) == packet(seq)) }
    }

    @Test func oversizedAndEmptyPacketsAreRefused() {
        var cache = RTPPacketCache(capacity: 8, maxPacketSize: 40)
        let tooLarge = cache.store(packet(1, size: 29), sequenceNumber: 1)
        let fits = cache.store(packet(1, size: 28), sequenceNumber: 1)
        let empty = cache.store([], sequenceNumber: 2)
        #expect(!tooLarge && fits && !empty)
        #expect(cache.packet(sequenceNumber: 2) == nil)
    }

    @Test func shorterPacketReplacesLongerInTheSameSlot() {
        var cache = RTPPacketCache(capacity: 4, maxPacketSize: 100)
        cache.store(packet(1, size: 80), sequenceNumber: 1)
        cache.store(packet(5, size: 3), sequenceNumber: 5)
        #expect(cache.packet(sequenceNumber: 5) == packet(5, size: 3))
        #expect(cache.packet(sequenceNumber: 1) == nil)
    }

    @Test func removeAllForgets() {
        var cache = RTPPacketCache(capacity: 8, maxPacketSize: 100)
        cache.store(packet(3), sequenceNumber: 3)
        cache.removeAll()
        #expect(cache.packet(sequenceNumber: 3) == nil)
        cache.store(packet(40_000), sequenceNumber: 40_000)
        #expect(cache.packet(sequenceNumber: 40_000) == packet(40_000))
    }
}
