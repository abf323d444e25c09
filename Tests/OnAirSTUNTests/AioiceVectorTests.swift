import OnAirWire
import Testing
@testable import OnAirSTUN

/// Messages built by an implementation we did not write: aioice 0.13 (`aioice.stun.Message`
/// with `add_message_integrity` / `add_fingerprint`, zero padding), generated once with the
/// interop venv's Python and pasted here as hex. Transaction ID a0…ab, key
/// "relaypassword0123456789".
@Suite("Byte-exact agreement with aioice")
struct AioiceVectorTests {
    static let tid: [UInt8] = Array(0xA0...0xAB)
    static let password = "relaypassword0123456789"
    static let checker = TransportAddress(host: "192.0.2.10", port: 40000)!
    static let checkerV6 = TransportAddress(host: "2001:db8::a", port: 40000)!

    /// Binding request: USERNAME "relay:bcast", PRIORITY 0x6effffff, ICE-CONTROLLING
    /// 0x0102030405060708, USE-CANDIDATE, MESSAGE-INTEGRITY, FINGERPRINT.
    static let request = Hex.decode("""
        000100482112a442a0a1a2a3a4a5a6a7a8a9aaab0006000b72656c61793a626361737400002400046effffff\
        802a000801020304050607080025000000080014f470b94f320672067d3503044ebdb195b6d0617e80280004ed397552
        """)!
    /// Success response with XOR-MAPPED-ADDRESS 192.0.2.10:40000.
    static let responseV4 = Hex.decode("""
        0101002c2112a442a0a1a2a3a4a5a6a7a8a9aaab002000080001bd52e112a6480008001444f6e2478e65207c92f5\
        5ce08c7c44fc146ab3b780280004566da5b1
        """)!
    /// Success response with XOR-MAPPED-ADDRESS [2001:db8::a]:40000.
    static let responseV6 = Hex.decode("""
        010100382112a442a0a1a2a3a4a5a6a7a8a9aaab002000140002bd520113a9faa0a1a2a3a4a5a6a7a8a9aaa10008\
        0014d9e6d19d2c063174bd73603819315e858843103c8028000422776101
        """)!
    /// Error response 487 "Role Conflict".
    static let roleConflict = Hex.decode("""
        011100382112a442a0a1a2a3a4a5a6a7a8a9aaab0009001100000457526f6c6520436f6e666c696374000000\
        00080014b91d02035c008c7529e35e3b0b288b9626b83cce802800046799a65a
        """)!

    @Test("Our encoder produces aioice's request byte for byte")
    func requestEncoding() {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.tid, attributes: [
            .username("relay:bcast"), .priority(0x6EFF_FFFF),
            .iceControlling(tieBreaker: 0x0102_0304_0506_0708), .useCandidate,
        ])
        let encoded = message.encode(integrityKey: Array(Self.password.utf8), fingerprint: true)
        #expect(Hex.encode(encoded) == Hex.encode(Self.request))
    }

    @Test("The lite agent answers aioice's nominating check with exactly aioice's response",
          arguments: [(checker, responseV4), (checkerV6, responseV6)])
    func agentResponse(source: TransportAddress, expected: [UInt8]) throws {
        var agent = ICELiteAgent(localUfrag: "relay", localPassword: Self.password, remoteUfrag: "bcast", remotePassword: nil)
        let result = agent.receive(Self.request, from: source, now: .seconds(1))
        #expect(result.nominatedAddress == source)
        let datagram = try #require(result.datagram)
        #expect(datagram.address == source)
        #expect(Hex.encode(datagram.bytes) == Hex.encode(expected))
    }

    @Test("aioice's 487 equals our error response, and parses back")
    func errorResponse() throws {
        let request = try STUNMessage.parse(Self.request)
        let ours = STUNMessage.errorResponse(to: request, error: .roleConflict)
            .encode(integrityKey: Array(Self.password.utf8), fingerprint: true)
        #expect(Hex.encode(ours) == Hex.encode(Self.roleConflict))
        let parsed = try STUNMessage.parse(Self.roleConflict)
        #expect(parsed.errorCode?.code == 487)
        #expect(parsed.errorCode?.reason == "Role Conflict")
    }
}
