import OnAirWire
import Testing
@testable import OnAirSTUN

/// ``TURNClient`` against a scripted server: the long-term credential dance (RFC 8489 §9.2),
/// the allocation, permissions, channels, refreshes and deallocation (RFC 8656), all with a
/// manual clock.
@Suite("TURN client (RFC 8656)")
struct TURNClientTests {
    static let relayed = TransportAddress(host: "198.51.100.7", port: 49_152)!
    static let mapped = TransportAddress(host: "192.0.2.15", port: 40_000)!
    static let peer = TransportAddress(host: "203.0.113.9", port: 50_000)!
    static let key = STUNLongTermCredential.key(username: "1700000000:42", realm: "onair.test", password: "secret")

    /// A server's answer to `request`.
    static func answer(_ request: [UInt8], success: Bool, attributes: [(([UInt8]) -> STUNAttribute)] = [],
                       signed: Bool = true) throws -> [UInt8] {
        let parsed = try STUNMessage.parse(request)
        let type = STUNMessageType(method: parsed.type.method, messageClass: success ? .successResponse : .errorResponse)
        let message = STUNMessage(type: type, transactionID: parsed.transactionID,
                                  attributes: attributes.map { $0(parsed.transactionID) })
        return message.encode(integrityKey: signed ? key : nil, fingerprint: true)
    }

    /// Allocates: 401 with realm and nonce, the authenticated retry, the success.
    static func allocated(now: MonoTime) throws -> TURNClient {
        var client = TURNClient(username: "1700000000:42", password: "secret", reliable: false)
        client.allocate(now: now)
        let first = client.poll(now: now)
        #expect(first.count == 1)
        let unauthenticated = try STUNMessage.parse(first[0])
        #expect(unauthenticated.type.method == .allocate && unauthenticated.messageIntegrity == nil)
        #expect(unauthenticated.attribute(.requestedTransport)?.value == [17, 0, 0, 0])
        let challenge = try answer(first[0], success: false, attributes: [
            { _ in .errorCode(.unauthenticated) }, { _ in .realm("onair.test") }, { _ in .nonce("n1") }], signed: false)
        #expect(client.receive(challenge, now: now) == nil)
        let second = client.poll(now: now)
        #expect(second.count == 1)
        let authenticated = try STUNMessage.parse(second[0])
        #expect(authenticated.username == "1700000000:42" && authenticated.realm == "onair.test" && authenticated.nonce == "n1")
        #expect(STUNMessage.verifyMessageIntegrity(second[0], key: key) && STUNMessage.verifyFingerprint(second[0]))
        let success = try answer(second[0], success: true, attributes: [
            { .init(type: .xorRelayedAddress, value: STUNAttribute.xorMappedAddress(relayed, transactionID: $0).value) },
            { .xorMappedAddress(mapped, transactionID: $0) }, { _ in .lifetime(seconds: 600) }])
        #expect(client.receive(success, now: now) == .allocated(relayed: relayed, mapped: mapped))
        #expect(client.state == .allocated && client.lifetimeSeconds == 600)
        return client
    }

    @Test("401 -> credentials -> allocated; permission; 438 retried with the new nonce; channel bound")
    func allocationPermissionChannel() throws {
        let start = MonoTime(nanoseconds: 1_000_000_000)
        var client = try Self.allocated(now: start)
        client.permit([Self.peer, TransportAddress(host: "203.0.113.9", port: 1)!], now: start)
        let permission = client.poll(now: start)
        #expect(permission.count == 1)
        let request = try STUNMessage.parse(permission[0])
        #expect(request.type.method == .createPermission && request.xorPeerAddress == Self.peer)
        #expect(request.attributes.filter { $0.type == .xorPeerAddress }.count == 1)  // one per IP address
        #expect(!client.isPermitted(Self.peer))
        // 438: the same request again with the fresh nonce.
        let stale = try Self.answer(permission[0], success: false, attributes: [
            { _ in .errorCode(.staleNonce) }, { _ in .realm("onair.test") }, { _ in .nonce("n2") }], signed: false)
        #expect(client.receive(stale, now: start) == nil)
        let retried = client.poll(now: start)
        #expect(try STUNMessage.parse(retried[0]).nonce == "n2")
        #expect(STUNMessage.verifyMessageIntegrity(retried[0], key: Self.key))
        #expect(client.receive(try Self.answer(retried[0], success: true), now: start) == .permissionsGranted([Self.peer]))
        #expect(client.isPermitted(Self.peer))

        client.bindChannel(to: Self.peer, now: start)
        let bind = client.poll(now: start)
        let bindRequest = try STUNMessage.parse(bind[0])
        #expect(bindRequest.type.method == .channelBind && bindRequest.channelNumber == 0x4000)
        #expect(client.channel(for: Self.peer) == nil)
        #expect(client.receive(try Self.answer(bind[0], success: true), now: start) == .channelBound(Self.peer, channel: 0x4000))
        #expect(client.channel(for: Self.peer) == 0x4000 && client.peer(forChannel: 0x4000) == Self.peer)

        // A response with a wrong MESSAGE-INTEGRITY is not ours: dropped.
        client.bindChannel(to: Self.relayed, now: start)
        let other = client.poll(now: start)
        var forged = try Self.answer(other[0], success: true)
        forged[forged.count - 12] ^= 1
        #expect(client.receive(forged, now: start) == nil)
        // So is an unsigned success (RFC 8489 §9.2.5): anyone who saw the transaction ID could send it.
        #expect(client.receive(try Self.answer(other[0], success: true, signed: false), now: start) == nil)
        #expect(client.channel(for: Self.relayed) == nil)
    }

    @Test("Data indications give the peer's bytes; Send indications carry ours")
    func indications() throws {
        let client = try Self.allocated(now: .zero)
        let send = try STUNMessage.parse(client.sendIndication([1, 2, 3], to: Self.peer))
        #expect(send.type == STUNMessageType(method: .send, messageClass: .indication))
        #expect(send.xorPeerAddress == Self.peer && send.data == [1, 2, 3] && send.messageIntegrity == nil)
        let id = Array(repeating: UInt8(5), count: 12)
        let data = STUNMessage(type: STUNMessageType(method: .data, messageClass: .indication), transactionID: id,
                               attributes: [.xorPeerAddress(Self.peer, transactionID: id), .data([9, 8])])
        var copy = client
        #expect(copy.receive(data.encode(integrityKey: nil, fingerprint: false), now: .zero) == .data(Self.peer, [9, 8]))
    }

    @Test("refreshes: allocation a minute before its lifetime, permissions at 4 min, channels at 9; lifetime 0 deallocates")
    func refreshes() throws {
        let start = MonoTime.zero
        var client = try Self.allocated(now: start)
        client.permit([Self.peer], now: start)
        _ = client.receive(try Self.answer(client.poll(now: start)[0], success: true), now: start)
        client.bindChannel(to: Self.peer, now: start)
        _ = client.receive(try Self.answer(client.poll(now: start)[0], success: true), now: start)
        #expect(client.nextTimeout == start + .seconds(240))

        let atPermission = start + .seconds(240)
        let permission = client.poll(now: atPermission)
        #expect(permission.count == 1)
        #expect(try STUNMessage.parse(permission[0]).type.method == .createPermission)
        _ = client.receive(try Self.answer(permission[0], success: true), now: atPermission)

        let atChannel = start + .seconds(540)
        let refreshes = client.poll(now: atChannel).map { try! STUNMessage.parse($0).type.method }
        #expect(refreshes.contains(.channelBind) && refreshes.contains(.refresh))  // 540 s: channel and allocation (600 - 60)

        client = try Self.allocated(now: start)
        client.deallocate(now: start)
        let delete = client.poll(now: start)
        let refresh = try STUNMessage.parse(delete[0])
        #expect(refresh.type.method == .refresh && refresh.lifetime == 0)
        #expect(client.receive(try Self.answer(delete[0], success: true), now: start) == .deallocated)
        #expect(client.state == .closed)
    }

    @Test("a 401 to the authenticated Allocate fails the allocation; no answer at all times out")
    func failures() throws {
        var client = TURNClient(username: "u", password: "p", reliable: false)
        client.allocate(now: .zero)
        let first = client.poll(now: .zero)
        _ = client.receive(try Self.answer(first[0], success: false, attributes: [
            { _ in .errorCode(.unauthenticated) }, { _ in .realm("r") }, { _ in .nonce("n") }], signed: false), now: .zero)
        let second = client.poll(now: .zero)
        let event = client.receive(try Self.answer(second[0], success: false, attributes: [
            { _ in .errorCode(.unauthenticated) }, { _ in .realm("r") }, { _ in .nonce("n") }], signed: false), now: .zero)
        guard case .failed? = event, case .failed = client.state else {
            Issue.record("expected a failure, got \(String(describing: event)), \(client.state)")
            return
        }

        var silent = TURNClient(username: "u", password: "p", reliable: true)
        silent.allocate(now: .zero)
        #expect(silent.poll(now: .zero).count == 1)  // TCP: sent once (RFC 8489 §6.2.2)
        #expect(silent.poll(now: .seconds(39)).isEmpty && silent.state == .allocating)
        _ = silent.poll(now: .seconds(40))
        #expect(silent.state == .failed("the TURN server did not answer the Allocate"))
    }
}
