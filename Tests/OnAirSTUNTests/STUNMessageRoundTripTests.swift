import OnAirWire
import Testing
@testable import OnAirSTUN

@Suite("STUN encode/parse round trips")
struct STUNMessageRoundTripTests {
    static let tid: [UInt8] = Array(1...12)

    @Test("Every typed attribute survives encode then parse",
          arguments: [
            TransportAddress(host: "203.0.113.7", port: 5000)!,
            TransportAddress(host: "2001:db8::1", port: 65535)!,
            TransportAddress(host: "::", port: 0)!,
          ])
    func typedAttributes(address: TransportAddress) throws {
        let message = STUNMessage(type: .bindingSuccessResponse, transactionID: Self.tid, attributes: [
            .xorMappedAddress(address, transactionID: Self.tid),
            .mappedAddress(address),
            .username("relay:peer"),
            .software("OnAir"),
            .priority(0x6EFF_FFFF),
            .useCandidate,
            .iceControlling(tieBreaker: 0x0102_0304_0506_0708),
            .iceControlled(tieBreaker: .max),
            .errorCode(.roleConflict),
            .unknownAttributes([STUNAttributeType(rawValue: 0x7777), .realm]),
            STUNAttribute(type: STUNAttributeType(rawValue: 0xC001), value: [1, 2, 3]),
        ])
        let bytes = message.encode(integrityKey: nil, fingerprint: false)
        #expect(bytes.count % 4 == 0)
        #expect(STUNMessage.isSTUN(bytes))
        let parsed = try STUNMessage.parse(bytes)
        #expect(parsed == message)
        #expect(parsed.xorMappedAddress == address)
        #expect(parsed.mappedAddress == address)
        #expect(parsed.username == "relay:peer")
        #expect(parsed.software == "OnAir")
        #expect(parsed.priority == 0x6EFF_FFFF)
        #expect(parsed.useCandidate)
        #expect(parsed.iceControlling == 0x0102_0304_0506_0708)
        #expect(parsed.iceControlled == .max)
        #expect(parsed.errorCode?.code == 487)
        #expect(parsed.errorCode?.reason == "Role Conflict")
        #expect(parsed.unknownAttributes == [STUNAttributeType(rawValue: 0x7777), .realm])
    }

    @Test("XOR-MAPPED-ADDRESS bytes really are masked (RFC 8489 §14.2)")
    func xorMasking() {
        let attribute = STUNAttribute.xorMappedAddress(TransportAddress(ip: .v4(0), port: 0), transactionID: Self.tid)
        // Port XOR 0x2112, address XOR the cookie.
        #expect(attribute.value == [0x00, 0x01, 0x21, 0x12, 0x21, 0x12, 0xA4, 0x42])
        let v6 = STUNAttribute.xorMappedAddress(TransportAddress(ip: .v6(IPv6Address(Array(repeating: 0, count: 16))), port: 0), transactionID: Self.tid)
        #expect(Array(v6.value[4...]) == [0x21, 0x12, 0xA4, 0x42] + Self.tid)
    }

    @Test("Integrity and fingerprint are appended last and verify; stale ones in attributes are replaced")
    func integrityAndFingerprint() throws {
        let key = Array("secret".utf8)
        var message = STUNMessage(type: .bindingRequest, transactionID: Self.tid, attributes: [.username("a:b")])
        message.attributes.append(STUNAttribute(type: .fingerprint, value: [0, 0, 0, 0]))
        message.attributes.append(STUNAttribute(type: .messageIntegrity, value: Array(repeating: 0, count: 20)))
        let bytes = message.encode(integrityKey: key, fingerprint: true)
        let parsed = try STUNMessage.parse(bytes)
        #expect(parsed.attributes.map(\.type) == [.username, .messageIntegrity, .fingerprint])
        #expect(STUNMessage.verifyMessageIntegrity(bytes, key: key))
        #expect(!STUNMessage.verifyMessageIntegrity(bytes, key: Array("Secret".utf8)))
        #expect(STUNMessage.verifyFingerprint(bytes))

        let onlyIntegrity = message.encode(integrityKey: key, fingerprint: false)
        #expect(STUNMessage.verifyMessageIntegrity(onlyIntegrity, key: key))
        #expect(!STUNMessage.verifyFingerprint(onlyIntegrity))

        let onlyFingerprint = message.encode(integrityKey: nil, fingerprint: true)
        #expect(!STUNMessage.verifyMessageIntegrity(onlyFingerprint, key: key))
        #expect(STUNMessage.verifyFingerprint(onlyFingerprint))
    }

    @Test("Attributes after MESSAGE-INTEGRITY other than FINGERPRINT are ignored (RFC 8489 §14.5)")
    func attributesAfterIntegrityIgnored() throws {
        let key = Array("k".utf8)
        var bytes = STUNMessage(type: .bindingRequest, transactionID: Self.tid, attributes: [.username("a:b")])
            .encode(integrityKey: key, fingerprint: false)
        // Append a PRIORITY after MESSAGE-INTEGRITY and fix up the length.
        bytes += [0x00, 0x24, 0x00, 0x04, 0, 0, 0, 1]
        bytes[3] += 8
        let parsed = try STUNMessage.parse(bytes)
        #expect(parsed.priority == nil)
        #expect(parsed.attributes.map(\.type) == [.username, .messageIntegrity])
        #expect(STUNMessage.verifyMessageIntegrity(bytes, key: key))
    }

    @Test("420 helper lists unknown comprehension-required types once, ignores optional ones")
    func unknownComprehensionRequired() {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.tid, attributes: [
            .username("a:b"),
            STUNAttribute(type: STUNAttributeType(rawValue: 0x7FFF), value: []),
            STUNAttribute(type: STUNAttributeType(rawValue: 0x8FFF), value: []),
            STUNAttribute(type: STUNAttributeType(rawValue: 0x0031), value: [1]),
            STUNAttribute(type: STUNAttributeType(rawValue: 0x7FFF), value: [2]),
        ])
        #expect(message.unknownComprehensionRequiredAttributes() == [
            STUNAttributeType(rawValue: 0x7FFF), STUNAttributeType(rawValue: 0x0031),
        ])
        let response = STUNMessage.errorResponse(to: message, error: .unknownAttribute,
                                                 unknownAttributes: message.unknownComprehensionRequiredAttributes())
        #expect(response.type == .bindingErrorResponse)
        #expect(response.transactionID == Self.tid)
        #expect(response.errorCode == .unknownAttribute)
        #expect(response.unknownAttributes == [STUNAttributeType(rawValue: 0x7FFF), STUNAttributeType(rawValue: 0x0031)])
    }

    @Test("ERROR-CODE wire layout: class in bits 8-10, number in the low byte (RFC 8489 §14.8)")
    func errorCodeLayout() throws {
        let attribute = STUNAttribute.errorCode(STUNErrorCode(code: 420, reason: "x"))
        #expect(attribute.value == [0, 0, 4, 20, 0x78])
        #expect(try attribute.decodeErrorCode().code == 420)
        #expect(throws: WireError.self) { try STUNAttribute(type: .errorCode, value: [0, 0, 7, 0]).decodeErrorCode() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .errorCode, value: [0, 0, 4, 100]).decodeErrorCode() }
        #expect(throws: WireError.self) { try STUNAttribute(type: .errorCode, value: [0, 0, 4]).decodeErrorCode() }
    }
}
