import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("RTP header extensions (RFC 8285)")
struct RTPHeaderExtensionTests {
    /// Walks `data` as a whole extension block of the given form.
    private func walk(_ data: [UInt8], form: RTPHeaderExtensionForm) throws(WireError) -> [RTPHeaderExtensionElement] {
        try data.withWireBytes { bytes throws(WireError) in
            var out: [RTPHeaderExtensionElement] = []
            try RTPHeaderExtensionWalker.forEach(in: bytes, form: form, dataRange: 0..<bytes.count) { id, range in
                out.append(RTPHeaderExtensionElement(id: id, data: Array(bytes[range])))
                return true
            }
            return out
        }
    }

    @Test func oneBytePaddingIsSkippedAnywhere() throws {
        #expect(try walk(hex("00 00 10 aa 00 21 01 02 00 00 00 00"), form: .oneByte) == [
            RTPHeaderExtensionElement(id: 1, data: [0xAA]),
            RTPHeaderExtensionElement(id: 2, data: [1, 2]),
        ])
    }

    @Test func oneByteID15StopsProcessing() throws {
        // RFC 8285 §4.2: ID 15 ends the walk; its length nibble is ignored.
        #expect(try walk(hex("10 aa f3 20 bb 00 00 00"), form: .oneByte) == [
            RTPHeaderExtensionElement(id: 1, data: [0xAA]),
        ])
    }

    @Test func oneByteZeroIDWithLengthStopsProcessing() throws {
        #expect(try walk(hex("10 aa 03 20 bb 00 00 00"), form: .oneByte) == [
            RTPHeaderExtensionElement(id: 1, data: [0xAA]),
        ])
    }

    @Test func oneByteSixteenByteElement() throws {
        let data = [0x7F] + (1...16).map { UInt8($0) } + [0, 0, 0]
        #expect(try walk(data, form: .oneByte) == [RTPHeaderExtensionElement(id: 7, data: (1...16).map { UInt8($0) })])
    }

    @Test func twoBytePaddingBetweenElements() throws {
        #expect(try walk(hex("00 01 00 00 02 02 aa bb"), form: .twoByte(appBits: 0)) == [
            RTPHeaderExtensionElement(id: 1, data: []),
            RTPHeaderExtensionElement(id: 2, data: [0xAA, 0xBB]),
        ])
    }

    @Test func overrunningElementsThrow() {
        #expect(throws: WireError.self) { try walk(hex("13 aa bb 00"), form: .oneByte) }
        #expect(throws: WireError.self) { try walk(hex("01 05 aa bb"), form: .twoByte(appBits: 0)) }
        #expect(throws: WireError.self) { try walk(hex("00 00 00 01"), form: .twoByte(appBits: 0)) }
    }

    @Test func walkerRejectsRangeOutsidePacket() {
        #expect(throws: WireError.self) {
            try [UInt8](repeating: 0, count: 4).withWireBytes { bytes throws(WireError) in
                try RTPHeaderExtensionWalker.forEach(in: bytes, form: .oneByte, dataRange: 2..<8) { _, _ in true }
            }
        }
    }

    @Test func blockChoosesOneByteFormAndPads() throws {
        let block = try RTPHeaderExtensionBlock(elements: [
            RTPHeaderExtensionElement(id: 3, data: WellKnownHeaderExtensions.encodeAbsSendTime(0x06_0000)),
            RTPHeaderExtensionElement(id: 5, data: WellKnownHeaderExtensions.encodeTransportSequenceNumber(0x0102)),
        ])
        #expect(block.profile == 0xBEDE)
        #expect(block.data == hex("32 06 00 00 51 01 02 00"))
        var writer = ByteWriter()
        block.serialize(into: &writer)
        #expect(writer.bytes == hex("be de 00 02 32 06 00 00 51 01 02 00"))
        #expect(block.serializedSize == 12)
        #expect(try block.elements().map(\.id) == [3, 5])
    }

    @Test func blockFromWellKnownElements() throws {
        // A typical video packet's block: mid "0", abs-send-time, transport-wide seq, and
        // an audio level, in the one-byte form: 2 + 4 + 3 + 2 = 11 bytes, padded to 12.
        let block = try RTPHeaderExtensionBlock(elements: [
            .mid(id: 4, "0"), .absSendTime(id: 2, 0xAB_CDEF), .transportSequenceNumber(id: 3, 0x0102),
            .audioLevel(id: 1, voiceActivity: true, level: 127),
        ])
        var writer = ByteWriter()
        block.serialize(into: &writer)
        #expect(writer.bytes == hex("be de 00 03 40 30 22 ab cd ef 31 01 02 10 ff 00"))
    }

    @Test func blockChoosesTwoByteFormWhenNeeded() throws {
        // ID 20 and an empty value do not fit the one-byte form.
        let block = try RTPHeaderExtensionBlock(elements: [
            RTPHeaderExtensionElement(id: 20, data: [0xAB]),
            RTPHeaderExtensionElement(id: 2, data: []),
        ])
        #expect(block.profile == 0x1000)
        #expect(block.data == hex("14 01 ab 02 00 00 00 00"))
        #expect(try block.elements() == [
            RTPHeaderExtensionElement(id: 20, data: [0xAB]),
            RTPHeaderExtensionElement(id: 2, data: []),
        ])
    }

    @Test func blockRejectsElementsThatDoNotFitTheForm() {
        #expect(throws: WireError.self) {
            try RTPHeaderExtensionBlock(elements: [RTPHeaderExtensionElement(id: 15, data: [1])], form: .oneByte)
        }
        #expect(throws: WireError.self) {
            try RTPHeaderExtensionBlock(elements: [RTPHeaderExtensionElement(id: 1, data: [UInt8](repeating: 1, count: 17))],
                                        form: .oneByte)
        }
        #expect(throws: WireError.self) {
            try RTPHeaderExtensionBlock(elements: [RTPHeaderExtensionElement(id: 0, data: [1])], form: .twoByte(appBits: 0))
        }
    }

    @Test func wellKnownValues() throws {
        // 1.5 s after the NTP epoch: 6.18 fixed point 1.5 × 2^18 = 0x060000.
        #expect(WellKnownHeaderExtensions.absSendTime(NTPTime(seconds: 1, fraction: 0x8000_0000)) == 0x06_0000)
        // Only 6 bits of seconds survive: 65.5 s wraps to 1.5 s.
        #expect(WellKnownHeaderExtensions.absSendTime(NTPTime(seconds: 65, fraction: 0x8000_0000)) == 0x06_0000)
        #expect(try WellKnownHeaderExtensions.decodeAbsSendTime(hex("06 00 01")) == 0x06_0001)
        #expect(try WellKnownHeaderExtensions.decodeTransportSequenceNumber(hex("ff fe")) == 0xFFFE)
        #expect(WellKnownHeaderExtensions.encodeMID("0") == [0x30])
        #expect(try WellKnownHeaderExtensions.decodeMID(hex("61 75 64 69 6f 00")) == "audio")
        #expect(WellKnownHeaderExtensions.encodeAudioLevel(voiceActivity: true, level: 30) == [0x9E])
        let level = try WellKnownHeaderExtensions.decodeAudioLevel([0x9E])
        #expect(level.voiceActivity && level.level == 30)
        #expect(WellKnownHeaderExtensions.encodeAudioLevel(voiceActivity: false, level: 200) == [0x7F])
        #expect(throws: WireError.self) { try WellKnownHeaderExtensions.decodeAbsSendTime([1, 2]) }
        #expect(throws: WireError.self) { try WellKnownHeaderExtensions.decodeTransportSequenceNumber([1]) }
        #expect(throws: WireError.self) { try WellKnownHeaderExtensions.decodeMID([]) }
        #expect(throws: WireError.self) { try WellKnownHeaderExtensions.decodeAudioLevel([]) }
    }
}
