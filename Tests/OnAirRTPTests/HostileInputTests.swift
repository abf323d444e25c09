import OnAirWire
import Testing

@testable import OnAirRTP
import OnAirTestSupport

/// Parsers of network bytes must throw, never trap, whatever arrives. These loops feed
/// random bytes, mutated valid packets and every truncation of valid packets.
@Suite("Hostile input")
struct HostileInputTests {
    static let validRTP: [[UInt8]] = [
        hex("80 ef 12 34 de ad be ef 01 02 03 04 aa bb cc"),
        hex("82 60 00 01 00 00 00 64 11 22 33 44 aa aa aa aa bb bb bb bb 01 02"),
        hex("90 60 00 01 00 00 00 64 11 22 33 44 be de 00 02 10 aa 22 01 02 03 00 00 de ad be ef"),
        hex("90 60 00 01 00 00 00 64 11 22 33 44 10 00 00 02 05 00 06 03 01 02 03 00 ff"),
        hex("b1 60 00 01 00 00 00 64 11 22 33 44 55 55 55 55 be de 00 01 21 01 02 00 aa 00 00 03"),
        hex("a0 61 00 01 00 00 00 64 00 00 00 09 00 05 01 02 00 00 00 04"),
    ]

    static let validRTCP: [[UInt8]] = [
        RTCPCompoundTests.senderCompound,
        hex(RTCPCompoundTests.receiverReport + "8f ce 00 05 00 00 00 01 00 00 00 00 52 45 4d 42 01 0e dc 6c 12 34 ab cd"),
        hex(RTCPCompoundTests.receiverReport + "81 ce 00 02 00 00 00 01 12 34 ab cd 81 cd 00 03 00 00 00 01 12 34 ab cd 00 64 00 05"),
        hex("82 ca 00 07 00 00 00 01 01 02 61 62 00 00 00 00 00 00 00 02 01 03 61 62 63 02 01 78 00 00 00 00"),
        hex("81 cb 00 03 12 34 ab cd 04 67 6f 6e 65 00 00 00 84 ce 00 04 00 00 00 01 00 00 00 00 12 34 ab cd 07 00 00 00"),
        hex("8f cd 00 06 00 00 00 01 12 34 ab cd 00 64 00 04 00 00 01 02 d2 40 10 ff ff 04 00 00"),
        hex("81 cc 00 03 12 34 ab cd 54 45 53 54 01 02 03 04 80 cf 00 02 12 34 ab cd 04 00 00 00"),
    ]

    /// Everything a relay does with an RTP packet; none of it may trap.
    private func exerciseRTP(_ bytes: [UInt8]) {
        let fromBuffer = try? bytes.withWireBytes { b throws(WireError) in try RTPHeader(parsing: b) }
        guard let header = try? RTPHeader(parsing: bytes) else {
            #expect(fromBuffer == nil)
            return
        }
        #expect(fromBuffer == header)
        #expect(header.payloadOffset + header.payloadLength + header.paddingLength == bytes.count)
        _ = try? header.extensionElements(in: bytes)
        var copy = bytes
        _ = try? copy.withMutableWireBytes { b throws(WireError) in
            try RTPPacketRewriter.setTransportSequenceNumber(7, id: 1, in: b, header: header)
        }
        _ = try? RTX.unwrap(bytes, originalSSRC: 1, originalPayloadType: 96)
        if let wrapped = try? RTX.wrap(bytes, rtxSSRC: 2, rtxPayloadType: 97, rtxSequenceNumber: 3) {
            let restored = try? RTX.unwrap(wrapped, originalSSRC: header.ssrc, originalPayloadType: header.payloadType)
            #expect(restored.map { Array($0[header.payloadOffset...]) } == Array(bytes[header.payloadRange]))
        }
    }

    /// Parses; if that works, what we write must parse again, and writing is stable
    /// after one round (padding and alignment are normalized by the first).
    private func exerciseRTCP(_ bytes: [UInt8]) {
        guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
        let written = RTCPCompoundBuilder.serialize(packets)
        #expect(written.count == RTCPCompoundBuilder(packets).serializedSize)
        #expect(written.count % 4 == 0)
        guard let reparsed = try? RTCPPacket.parseCompound(written) else {
            Issue.record("re-serialized compound does not parse: \(Hex.encode(bytes))")
            return
        }
        #expect(RTCPCompoundBuilder.serialize(reparsed) == written, "\(Hex.encode(bytes))")
    }

    @Test func randomBytesAsRTP() {
        var rng = SplitMix64(seed: 0xA11CE)
        for i in 0..<4000 {
            var bytes = rng.bytes(Int.random(in: 0...96, using: &rng))
            // Half the time make it look like RTP so the parser gets past the version check.
            if i % 2 == 0, !bytes.isEmpty { bytes[0] = 0x80 | bytes[0] & 0x3F }
            // Sometimes a real extension profile.
            if i % 4 == 0, bytes.count > 16 {
                bytes[0] |= 0x10
                bytes[0] &= 0xF0
                bytes[12] = 0xBE; bytes[13] = 0xDE
            }
            if i % 8 == 4, bytes.count > 16 {
                bytes[0] = 0x90; bytes[12] = 0x10; bytes[13] = 0x00
            }
            exerciseRTP(bytes)
        }
    }

    @Test func randomBytesAsRTCP() {
        var rng = SplitMix64(seed: 0xB0B)
        for _ in 0..<3000 {
            exerciseRTCP(rng.bytes(Int.random(in: 0...128, using: &rng)))
        }
    }

    /// Random packets with valid common headers and lengths, so every body parser sees
    /// random content.
    @Test func randomBodiesWithValidHeaders() {
        var rng = SplitMix64(seed: 0xC0FFEE)
        let types: [(UInt8, UInt8?)] = [(200, nil), (201, nil), (202, nil), (203, nil), (204, nil), (207, nil),
                                        (205, 1), (205, 15), (206, 1), (206, 4), (206, 15), (210, nil)]
        var parsed = 0
        for _ in 0..<5000 {
            var compound: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let (type, format) = types.randomElement(using: &rng)!
                let words = Int.random(in: 0...12, using: &rng)
                let count = format ?? UInt8.random(in: 0...31, using: &rng) % (Bool.random(using: &rng) ? 32 : 3)
                var body = rng.bytes(4 * words)
                if type == 206, format == 15, words >= 3 { body[8...11] = [0x52, 0x45, 0x4D, 0x42] }
                compound += [0x80 | count, type, 0, UInt8(words)] + body
            }
            if (try? RTCPPacket.parseCompound(compound)) != nil { parsed += 1 }
            exerciseRTCP(compound)
        }
        // The loop must reach the body parsers' success paths too, not only their errors.
        #expect(parsed > 500)
    }

    @Test func mutatedValidPackets() {
        var rng = SplitMix64(seed: 0xD15EA5E)
        for _ in 0..<3000 {
            var rtp = Self.validRTP.randomElement(using: &rng)!
            var rtcp = Self.validRTCP.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                rtp[Int.random(in: 0..<rtp.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                rtcp[Int.random(in: 0..<rtcp.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            exerciseRTP(rtp)
            exerciseRTCP(rtcp)
        }
    }

    @Test func truncationsOfValidPackets() {
        for packet in Self.validRTP {
            for length in 0...packet.count { exerciseRTP(Array(packet.prefix(length))) }
        }
        for compound in Self.validRTCP {
            // Offsets where a packet ends: only there may a prefix parse.
            var boundaries: Set<Int> = []
            var offset = 0
            while offset < compound.count {
                offset += 4 * ((Int(compound[offset + 2]) << 8 | Int(compound[offset + 3])) + 1)
                boundaries.insert(offset)
            }
            for length in 0..<compound.count {
                let prefix = Array(compound.prefix(length))
                let parsed = (try? RTCPPacket.parseCompound(prefix)) != nil
                #expect(parsed == boundaries.contains(length), "prefix of \(length) bytes")
                exerciseRTCP(prefix)
            }
            #expect((try? RTCPPacket.parseCompound(compound)) != nil)
        }
    }

    @Test(arguments: [
        // RTP: 15 CSRCs announced in a 12-byte packet; extension length 0xFFFF words.
        "8f 60 00 01 00 00 00 64 11 22 33 44",
        "90 60 00 01 00 00 00 64 11 22 33 44 be de ff ff",
    ])
    func hugeCountsInRTP(packet: String) {
        #expect(throws: WireError.self) { try RTPHeader(parsing: hex(packet)) }
    }

    @Test(arguments: [
        "9f c8 00 06 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",  // SR, RC 31
        "9f c9 00 01 00 00 00 01",                                                             // RR, RC 31
        "9f ca 00 01 00 00 00 01",                                                             // SDES, SC 31
        "9f cb 00 01 00 00 00 01",                                                             // BYE, SC 31
        "81 cd ff ff 00 00 00 01 00 00 00 02",                                                 // NACK, length 0xFFFF
        "8f ce 00 04 00 00 00 01 00 00 00 00 52 45 4d 42 ff 0e dc 6c",                         // REMB, 255 SSRCs
        // transport-cc: 65535 statuses in 8 full runs of small deltas, no delta bytes.
        "8f cd 00 08 00 00 00 01 00 00 00 02 00 00 ff ff 00 00 00 00 3f ff 3f ff 3f ff 3f ff 3f ff 3f ff 3f ff 3f ff",
        "8f cd 00 04 00 00 00 01 00 00 00 02 00 00 ff ff 00 00 00 00",                         // no chunks at all
        "81 ca 00 02 00 00 00 01 01 ff 61 00",                                                 // SDES item of 255 bytes
        "81 cb 00 02 00 00 00 01 ff 61 62 63",                                                 // BYE reason of 255 bytes
    ])
    func hugeCountsInRTCP(packet: String) {
        #expect(throws: WireError.self) { try RTCPPacket.parseCompound(hex(packet)) }
    }

    @Test func zeroLengthInputs() {
        #expect(throws: WireError.self) { try RTPHeader(parsing: []) }
        #expect(throws: WireError.self) { try RTCPPacket.parseCompound([]) }
        #expect(throws: WireError.self) { try RTX.unwrap([], originalSSRC: 1, originalPayloadType: 96) }
        #expect(throws: WireError.self) { try RTX.wrap([], rtxSSRC: 1, rtxPayloadType: 97, rtxSequenceNumber: 1) }
        var empty: [UInt8] = []
        #expect(throws: WireError.self) { try RTPPacketRewriter.setSequenceNumber(1, in: &empty) }
        var cache = RTPPacketCache(capacity: 4, maxPacketSize: 10)
        let stored = cache.store([], sequenceNumber: 1)
        #expect(!stored)
    }
}
