import OnAirWire
import Testing
@testable import OnAirSTUN
import OnAirTestSupport

@Suite("STUN parser on malformed input")
struct STUNMalformedInputTests {
    /// A minimal valid request: header plus USERNAME "ab" (padded) = 28 bytes.
    static let valid = Hex.decode("00 01 00 08 21 12 a4 42 01 02 03 04 05 06 07 08 09 0a 0b 0c 00 06 00 02 61 62 00 00")!

    @Test("The reference input is valid")
    func referenceIsValid() throws {
        #expect(try STUNMessage.parse(Self.valid).username == "ab")
        #expect(STUNMessage.isSTUN(Self.valid))
    }

    @Test("Every truncation throws, none traps")
    func truncations() {
        for length in 0..<Self.valid.count {
            #expect(throws: WireError.self) { try STUNMessage.parse(Array(Self.valid.prefix(length))) }
            #expect(!STUNMessage.isSTUN(Array(Self.valid.prefix(length))))
        }
    }

    @Test("Header violations", arguments: [
        ("leading bit", 0, UInt8(0x40)),
        ("other leading bit", 0, UInt8(0x80)),
        ("cookie", 4, UInt8(0x22)),
        ("cookie last byte", 7, UInt8(0x43)),
        ("length not multiple of 4", 3, UInt8(0x07)),
        ("length longer than datagram", 3, UInt8(0x0C)),
        ("length shorter than datagram", 3, UInt8(0x04)),
    ])
    func headerViolations(name: String, index: Int, value: UInt8) {
        var bytes = Self.valid
        bytes[index] = value
        #expect(throws: WireError.self, "\(name)") { try STUNMessage.parse(bytes) }
        #expect(!STUNMessage.isSTUN(bytes), "\(name)")
    }

    @Test("Trailing bytes after the announced length are rejected")
    func trailingBytes() {
        #expect(throws: WireError.invalid("STUN length 8 but 12 bytes follow the header")) {
            try STUNMessage.parse(Self.valid + [0, 0, 0, 0])
        }
    }

    @Test("An attribute whose value (or padding) overruns the message throws")
    func attributeOverrun() {
        var bytes = Self.valid
        bytes[23] = 0x05 // USERNAME length 5: padded to 8, message has only 4 value bytes
        #expect(throws: WireError.self) { try STUNMessage.parse(bytes) }
        bytes[23] = 0x04 // exactly fits
        #expect(throws: Never.self) { try STUNMessage.parse(bytes) }
        bytes[22] = 0xFF // length 0xFF04
        #expect(throws: WireError.self) { try STUNMessage.parse(bytes) }
    }

    @Test("MESSAGE-INTEGRITY and FINGERPRINT with wrong sizes or FINGERPRINT not last")
    func integrityAttributeShapes() {
        let header = Hex.decode("00 01 00 08 21 12 a4 42 01 02 03 04 05 06 07 08 09 0a 0b 0c")!
        // MESSAGE-INTEGRITY of 4 bytes.
        #expect(throws: WireError.self) { try STUNMessage.parse(header + [0x00, 0x08, 0x00, 0x04, 1, 2, 3, 4]) }
        // FINGERPRINT of 0 bytes, then another attribute.
        var fpFirst = header + [0x80, 0x28, 0x00, 0x04, 1, 2, 3, 4, 0x00, 0x25, 0x00, 0x00]
        fpFirst[3] = 12
        #expect(throws: WireError.self) { try STUNMessage.parse(fpFirst) }
        #expect(!STUNMessage.verifyFingerprint(fpFirst))
        #expect(!STUNMessage.verifyMessageIntegrity(fpFirst, key: [1]))
    }

    @Test("Typed readers reject malformed values without trapping")
    func typedReaders() {
        let tid = [UInt8](repeating: 0, count: 12)
        #expect(throws: WireError.self) { try STUNAttribute(type: .priority, value: [1, 2, 3]).decodeUInt32() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .iceControlled, value: [1]).decodeUInt64() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .username, value: [0xFF, 0xFE]).decodeString() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .xorMappedAddress, value: [0, 1, 0, 0, 1]).decodeXORAddress(transactionID: tid) }
        #expect(throws: WireError.self) { try STUNAttribute(type: .xorMappedAddress, value: [0, 2, 0, 0, 1, 2, 3, 4]).decodeXORAddress(transactionID: tid) }
        #expect(throws: WireError.self) { try STUNAttribute(type: .mappedAddress, value: [0, 3, 0, 0, 1, 2, 3, 4]).decodeAddress() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .mappedAddress, value: [0, 1]).decodeAddress() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .xorMappedAddress, value: [0, 1, 0, 0, 1, 2, 3, 4]).decodeXORAddress(transactionID: [1]) }
        #expect(throws: WireError.self) { try STUNAttribute(type: .unknownAttributes, value: [0, 1, 2]).decodeAttributeTypes() }
    }

    @Test("isSTUN rejects other protocols by their first byte (RFC 7983)")
    func demux() {
        var dtls = Self.valid
        dtls[0] = 22 // DTLS handshake
        #expect(!STUNMessage.isSTUN(dtls))
        var rtp = Self.valid
        rtp[0] = 0x80
        #expect(!STUNMessage.isSTUN(rtp))
    }

    /// A cheap deterministic fuzz pass: mutate the RFC vectors and random bytes; nothing may trap.
    @Test("Random mutations never trap")
    func mutationsNeverTrap() {
        var generator = SplitMix64(seed: 0x5354_554E)
        let seeds = [RFC5769.request, RFC5769.ipv4Response, RFC5769.ipv6Response, RFC5769.longTermRequest, Self.valid]
        for round in 0..<20_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if round % 7 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1)))) }
            _ = STUNMessage.isSTUN(bytes)
            _ = STUNMessage.verifyFingerprint(bytes)
            _ = STUNMessage.verifyMessageIntegrity(bytes, key: RFC5769.password)
            if let message = try? STUNMessage.parse(bytes) {
                _ = (message.username, message.priority, message.xorMappedAddress, message.errorCode,
                     message.unknownAttributes, message.mappedAddress, message.iceControlled)
            }
        }
    }
}

