import OnAirWire
import Testing

@testable import OnAirRTP
import OnAirTestSupport

@Suite("RTCP feedback (RFC 4585, RFC 5104, REMB)")
struct RTCPFeedbackTests {
    @Test func pictureLossIndication() throws {
        let bytes = hex("81 ce 00 02 00 00 00 01 12 34 ab cd")
        let pli = PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1234_ABCD)
        #expect(try parseSingle(bytes) == .pictureLossIndication(pli))
        #expect(pli.serialized() == bytes)
    }

    @Test func fullIntraRequest() throws {
        let bytes = hex("84 ce 00 06 00 00 00 01 00 00 00 00 12 34 ab cd 07 00 00 00 00 00 00 02 ff 00 00 00")
        let fir = FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 0x1234_ABCD, sequenceNumber: 7),
                                                            .init(ssrc: 2, sequenceNumber: 255)])
        #expect(try parseSingle(bytes) == .fullIntraRequest(fir))
        #expect(fir.serialized() == bytes)
    }

    @Test func fullIntraRequestWithPartialEntryThrows() {
        #expect(throws: WireError.self) {
            try RTCPPacket.parseCompound(hex("84 ce 00 03 00 00 00 01 00 00 00 00 12 34 ab cd"))
        }
    }

    @Test func genericNACK() throws {
        let bytes = hex("81 cd 00 03 00 00 00 01 12 34 ab cd 00 64 00 05")
        let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 0x1234_ABCD, items: [.init(packetID: 100, lostBitmask: 5)])
        #expect(try parseSingle(bytes) == .genericNACK(nack))
        #expect(nack.serialized() == bytes)
        #expect(nack.lostSequenceNumbers == [100, 101, 103])
        #expect(GenericNACK(senderSSRC: 1, mediaSSRC: 0x1234_ABCD, lostSequenceNumbers: [100, 101, 103]) == nack)
    }

    @Test func nackItemsFromLists() {
        #expect(GenericNACK.items(for: []) == [])
        #expect(GenericNACK.items(for: [100, 116]) == [.init(packetID: 100, lostBitmask: 0x8000)])
        #expect(GenericNACK.items(for: [100, 117]) == [.init(packetID: 100), .init(packetID: 117)])
        // Across the wrap: 65534 then 65535 (+1), 0 (+2), 2 (+4).
        #expect(GenericNACK.items(for: [65534, 65535, 0, 2]) == [.init(packetID: 65534, lostBitmask: 0b1011)])
        // Out of order with duplicates.
        #expect(GenericNACK.items(for: [5, 3, 3, 40, 4]) == [.init(packetID: 3, lostBitmask: 0b11), .init(packetID: 40)])
        #expect(GenericNACK.Item(packetID: 65535, lostBitmask: 0x8001).lostSequenceNumbers == [65535, 0, 15])
    }

    @Test func nackListsRoundTrip() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let start = UInt16.random(in: 0...UInt16.max, using: &rng)
            let lost = Set((0..<Int.random(in: 1...60, using: &rng)).map { _ in
                start &+ UInt16.random(in: 0...2000, using: &rng)
            })
            let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: Array(lost).shuffled(using: &rng))
            #expect(Set(nack.lostSequenceNumbers) == lost)
            #expect(nack.lostSequenceNumbers.count == lost.count)
            // Minimal: no item could be merged into the previous one.
            let ids = nack.items.map { Int(Int16(bitPattern: $0.packetID &- start)) }
            #expect(zip(ids, ids.dropFirst()).allSatisfy { $1 - $0 > 16 })
            guard let reparsed = try? RTCPPacket.parseCompound(nack.serialized()) else {
                Issue.record("NACK did not reparse")
                continue
            }
            #expect(reparsed == [.genericNACK(nack)])
        }
    }

    @Test func remb() throws {
        // 1.5 Mbit/s = 187500 × 2^3.
        let bytes = hex("8f ce 00 05 00 00 00 01 00 00 00 00 52 45 4d 42 01 0e dc 6c 12 34 ab cd")
        let remb = REMB(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [0x1234_ABCD])
        #expect(try parseSingle(bytes) == .remb(remb))
        #expect(remb.serialized() == bytes)
        #expect(remb.exponentAndMantissa == (3, 187_500))
    }

    @Test func rembBitrateEncoding() {
        #expect(REMB(senderSSRC: 1, bitrate: 0x3_FFFF, ssrcs: []).exponentAndMantissa == (0, 0x3_FFFF))
        #expect(REMB(senderSSRC: 1, bitrate: 0x4_0000, ssrcs: []).exponentAndMantissa == (1, 0x2_0000))
        #expect(REMB(senderSSRC: 1, bitrate: .max, ssrcs: []).exponentAndMantissa == (46, 0x3_FFFF))
        #expect(REMB(senderSSRC: 1, bitrate: 0, ssrcs: [1, 2]).serialized()
            == hex("8f ce 00 06 00 00 00 01 00 00 00 00 52 45 4d 42 02 00 00 00 00 00 00 01 00 00 00 02"))
    }

    @Test func rembHugeExponentSaturates() throws {
        // Exponent 63 with a full mantissa would need 81 bits.
        let bytes = hex("8f ce 00 04 00 00 00 01 00 00 00 00 52 45 4d 42 00 ff ff ff")
        guard case .remb(let remb) = try parseSingle(bytes) else {
            Issue.record("not a REMB")
            return
        }
        #expect(remb.bitrate == REMB.maxBitrate)
    }

    @Test func rembWithMissingSSRCsThrows() {
        #expect(throws: WireError.self) {
            try RTCPPacket.parseCompound(hex("8f ce 00 04 00 00 00 01 00 00 00 00 52 45 4d 42 ff 0e dc 6c"))
        }
    }
}
