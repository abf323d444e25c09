import Testing
@testable import OnAirSTUN

@Suite("STUN message type (RFC 8489 §5)")
struct STUNMessageTypeTests {
    @Test("Binding in each class has the well-known wire value")
    func bindingValues() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccessResponse.rawValue == 0x0101)
        #expect(STUNMessageType.bindingErrorResponse.rawValue == 0x0111)
    }

    @Test("Method bits are interleaved around the class bits")
    func interleaving() throws {
        // Method 0xFFF with class 0b00 sets every bit except C1 (bit 8), C0 (bit 4) and the top two.
        let allMethodBits = STUNMessageType(method: try #require(STUNMethod(rawValue: 0xFFF)), messageClass: .request)
        #expect(allMethodBits.rawValue == 0x3EEF)
        // TURN Allocate (0x003) error response is 0x0113 on the wire.
        let allocate = STUNMessageType(method: try #require(STUNMethod(rawValue: 0x003)), messageClass: .errorResponse)
        #expect(allocate.rawValue == 0x0113)
    }

    @Test("Every 14-bit value round-trips; values with a leading bit set are rejected")
    func roundTripAll() {
        for raw in UInt16(0)...0x3FFF {
            guard let type = STUNMessageType(rawValue: raw) else {
                Issue.record("0x\(String(raw, radix: 16)) rejected")
                return
            }
            #expect(type.rawValue == raw)
        }
        #expect(STUNMessageType(rawValue: 0x4001) == nil)
        #expect(STUNMessageType(rawValue: 0x8001) == nil)
        #expect(STUNMethod(rawValue: 0x1000) == nil)
    }
}
