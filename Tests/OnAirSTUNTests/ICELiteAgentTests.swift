import OnAirWire
import Testing
@testable import OnAirSTUN
import OnAirTestSupport

@Suite("ICE-lite agent (RFC 8445 §2.5, §7.3)")
struct ICELiteAgentTests {
    static let peer = TransportAddress(host: "198.51.100.20", port: 50000)!
    static let otherPeer = TransportAddress(host: "2001:db8::20", port: 50001)!
    static let t0 = MonoTime.seconds(100)

    static func agent(remoteUfrag: String? = "peer") -> ICELiteAgent {
        ICELiteAgent(localUfrag: "relay", localPassword: "relaypassword0123456789", remoteUfrag: remoteUfrag,
                     remotePassword: "peerpassword0123456789ab")
    }

    /// A check as a browser would send it to the relay.
    static func check(username: String? = "relay:peer", password: String? = "relaypassword0123456789",
                      priority: Bool = true, useCandidate: Bool = false, controlled: Bool = false,
                      extra: [STUNAttribute] = [], type: STUNMessageType = .bindingRequest,
                      transactionID: [UInt8] = Array(21...32)) -> [UInt8] {
        var attributes: [STUNAttribute] = []
        if let username { attributes.append(.username(username)) }
        if priority { attributes.append(.priority(0x6E7F_1EFF)) }
        attributes.append(controlled ? .iceControlled(tieBreaker: 7) : .iceControlling(tieBreaker: 7))
        if useCandidate { attributes.append(.useCandidate) }
        attributes += extra
        return STUNMessage(type: type, transactionID: transactionID, attributes: attributes)
            .encode(integrityKey: password.map { Array($0.utf8) }, fingerprint: true)
    }

    /// Parses a reply and checks what every reply must satisfy.
    static func reply(_ result: ICEReceiveResult, signed: Bool) throws -> STUNMessage {
        let datagram = try #require(result.datagram)
        #expect(datagram.address == peer)
        #expect(STUNMessage.verifyFingerprint(datagram.bytes))
        #expect(STUNMessage.verifyMessageIntegrity(datagram.bytes, key: Array("relaypassword0123456789".utf8)) == signed)
        let message = try STUNMessage.parse(datagram.bytes)
        #expect(message.transactionID == Array(21...32))
        return message
    }

    @Test("A valid check gets a signed success response with XOR-MAPPED-ADDRESS, no nomination")
    func validCheck() throws {
        var agent = Self.agent()
        let result = agent.receive(Self.check(), from: Self.peer, now: Self.t0)
        let response = try Self.reply(result, signed: true)
        #expect(response.type == .bindingSuccessResponse)
        #expect(response.xorMappedAddress == Self.peer)
        #expect(result.nominatedAddress == nil)
        #expect(agent.selectedAddress == nil)
        #expect(!agent.consentExpired(now: Self.t0 + .seconds(3600)))
    }

    @Test("USE-CANDIDATE nominates; the latest nomination wins")
    func nomination() throws {
        var agent = Self.agent()
        let first = agent.receive(Self.check(useCandidate: true), from: Self.peer, now: Self.t0)
        #expect(first.nominatedAddress == Self.peer)
        #expect(agent.selectedAddress == Self.peer)
        #expect(agent.lastActivity == Self.t0)
        let second = agent.receive(Self.check(useCandidate: true), from: Self.otherPeer, now: Self.t0 + .seconds(1))
        #expect(second.nominatedAddress == Self.otherPeer)
        #expect(agent.selectedAddress == Self.otherPeer)
        let v6 = try STUNMessage.parse(try #require(second.datagram).bytes)
        #expect(v6.xorMappedAddress == Self.otherPeer)
    }

    @Test("Authentication failures: 401 without MESSAGE-INTEGRITY, never a nomination", arguments: [
        ("wrong password", "relay:peer", "relaypassword012345678X"),
        ("wrong local ufrag", "relaz:peer", "relaypassword0123456789"),
        ("wrong remote ufrag", "relay:peeR", "relaypassword0123456789"),
        ("no colon", "relaypeer", "relaypassword0123456789"),
        ("reversed", "peer:relay", "relaypassword0123456789"),
    ])
    func unauthenticated(name: String, username: String, password: String) throws {
        var agent = Self.agent()
        let result = agent.receive(Self.check(username: username, password: password, useCandidate: true),
                                   from: Self.peer, now: Self.t0)
        #expect(result.error == .unauthenticated, "\(name)")
        #expect(try Self.reply(result, signed: false).errorCode?.code == 401)
        #expect(agent.selectedAddress == nil)
        #expect(agent.lastActivity == nil)
    }

    @Test("Missing USERNAME or MESSAGE-INTEGRITY: 400 unsigned")
    func missingCredentials() throws {
        var agent = Self.agent()
        for bytes in [Self.check(username: nil), Self.check(password: nil)] {
            let result = agent.receive(bytes, from: Self.peer, now: Self.t0)
            #expect(result.error == .badRequest)
            #expect(try Self.reply(result, signed: false).type == .bindingErrorResponse)
        }
    }

    @Test("Missing PRIORITY: 400, signed because the request was authenticated")
    func missingPriority() throws {
        var agent = Self.agent()
        let result = agent.receive(Self.check(priority: false, useCandidate: true), from: Self.peer, now: Self.t0)
        #expect(result.error == .badRequest)
        _ = try Self.reply(result, signed: true)
        #expect(agent.selectedAddress == nil)
    }

    @Test("A peer that also claims ICE-CONTROLLED gets 487 Role Conflict")
    func roleConflict() throws {
        var agent = Self.agent()
        let result = agent.receive(Self.check(useCandidate: true, controlled: true), from: Self.peer, now: Self.t0)
        #expect(result.error == .roleConflict)
        #expect(try Self.reply(result, signed: true).errorCode?.code == 487)
        #expect(agent.selectedAddress == nil)
    }

    @Test("RFC 5769 §2.1 sample request, sent to an agent with its credentials, authenticates and gets 487")
    func rfc5769RequestToAgent() throws {
        var agent = ICELiteAgent(localUfrag: "evtj", localPassword: "VOkJxbRl1RmTxUk/WvJxBt",
                                 remoteUfrag: "h6vY", remotePassword: nil)
        let result = agent.receive(RFC5769.request, from: Self.peer, now: Self.t0)
        #expect(result.error == .roleConflict)
        let datagram = try #require(result.datagram)
        #expect(STUNMessage.verifyMessageIntegrity(datagram.bytes, key: RFC5769.password))
        #expect(try STUNMessage.parse(datagram.bytes).transactionID == RFC5769.transactionID)
    }

    @Test("Unknown comprehension-required attributes: 420 listing them (RFC 8489 §6.3.1)")
    func unknownAttribute() throws {
        var agent = Self.agent()
        let extra = [STUNAttribute(type: STUNAttributeType(rawValue: 0x0042), value: [1]),
                     STUNAttribute(type: STUNAttributeType(rawValue: 0xC057), value: [0, 1, 0, 0])]
        let result = agent.receive(Self.check(extra: extra), from: Self.peer, now: Self.t0)
        #expect(result.error == .unknownAttribute)
        let response = try Self.reply(result, signed: true)
        #expect(response.unknownAttributes == [STUNAttributeType(rawValue: 0x0042)])
    }

    @Test("Indications, responses and non-STUN are ignored; a broken request with a sound header gets 400")
    func ignored() throws {
        var agent = Self.agent()
        let indication = Self.check(type: .bindingIndication)
        #expect(agent.receive(indication, from: Self.peer, now: Self.t0) == .ignore(.indication))
        #expect(agent.receive(RFC5769.ipv4Response, from: Self.peer, now: Self.t0) == .ignore(.response))
        #expect(agent.receive([0x80, 0x60, 0, 1], from: Self.peer, now: Self.t0) == .ignore(.notSTUN))
        var badFingerprint = Self.check()
        badFingerprint[badFingerprint.count - 1] ^= 1
        #expect(agent.receive(badFingerprint, from: Self.peer, now: Self.t0) == .ignore(.badFingerprint))
        // USERNAME length field made to overrun the message.
        var overrun = Self.check()
        overrun[23] = 0xF0
        let result = agent.receive(overrun, from: Self.peer, now: Self.t0)
        #expect(result.error == .badRequest)
        _ = try Self.reply(result, signed: false)
        // A broken response is simply dropped.
        var brokenResponse = RFC5769.ipv4Response
        brokenResponse[23] = 0xF0
        if case .ignore(.malformed) = agent.receive(brokenResponse, from: Self.peer, now: Self.t0) {} else {
            Issue.record("a malformed response must be ignored as malformed")
        }
        #expect(agent.selectedAddress == nil)
    }

    @Test("Without the remote ufrag only our half of USERNAME is checked; trickled credentials then apply")
    func remoteCredentialsLater() {
        var agent = Self.agent(remoteUfrag: nil)
        #expect(agent.receive(Self.check(username: "relay:anyone"), from: Self.peer, now: Self.t0).error == nil)
        #expect(agent.receive(Self.check(username: "other:peer"), from: Self.peer, now: Self.t0).error == .unauthenticated)
        agent.setRemoteCredentials(ufrag: "peer", password: "peerpassword0123456789ab")
        #expect(agent.remoteUfrag == "peer")
        #expect(agent.receive(Self.check(username: "relay:anyone"), from: Self.peer, now: Self.t0).error == .unauthenticated)
        #expect(agent.receive(Self.check(username: "relay:peer"), from: Self.peer, now: Self.t0).error == nil)
    }

    @Test("usernameFragments splits a request's USERNAME as (local, remote)")
    func usernameFragments() {
        let fragments = ICELiteAgent.usernameFragments(of: Self.check(username: "relay:peer:x"))
        #expect(fragments?.local == "relay")
        #expect(fragments?.remote == "peer:x")
        #expect(ICELiteAgent.usernameFragments(of: Self.check(username: "relaypeer")) == nil)
        #expect(ICELiteAgent.usernameFragments(of: Self.check(username: ":peer")) == nil)
        #expect(ICELiteAgent.usernameFragments(of: Self.check(username: nil)) == nil)
        #expect(ICELiteAgent.usernameFragments(of: Self.check(type: .bindingIndication)) == nil)
        #expect(ICELiteAgent.usernameFragments(of: [1, 2, 3]) == nil)
    }

    @Test("Consent: checks and authenticated media on the selected pair refresh it; it lapses after the timeout")
    func consent() {
        var agent = ICELiteAgent(localUfrag: "relay", localPassword: "relaypassword0123456789",
                                 remoteUfrag: "peer", remotePassword: nil, consentTimeout: .seconds(5))
        _ = agent.receive(Self.check(useCandidate: true), from: Self.peer, now: Self.t0)
        #expect(!agent.consentExpired(now: Self.t0 + .milliseconds(4999)))
        #expect(agent.consentExpired(now: Self.t0 + .seconds(5)))

        agent.noteAuthenticatedTraffic(from: Self.peer, now: Self.t0 + .seconds(4))
        #expect(agent.lastActivity == Self.t0 + .seconds(4))
        #expect(!agent.consentExpired(now: Self.t0 + .seconds(8)))

        // Traffic from elsewhere proves nothing about the selected pair.
        agent.noteAuthenticatedTraffic(from: Self.otherPeer, now: Self.t0 + .seconds(8))
        _ = agent.receive(Self.check(), from: Self.otherPeer, now: Self.t0 + .seconds(8))
        #expect(agent.consentExpired(now: Self.t0 + .seconds(9)))

        // A failed check from the selected address proves nothing either; a valid one does.
        _ = agent.receive(Self.check(password: "wrong"), from: Self.peer, now: Self.t0 + .seconds(10))
        #expect(agent.consentExpired(now: Self.t0 + .seconds(10)))
        _ = agent.receive(Self.check(), from: Self.peer, now: Self.t0 + .seconds(10))
        #expect(!agent.consentExpired(now: Self.t0 + .seconds(14)))
        #expect(agent.selectedAddress == Self.peer)
    }

    @Test("ICE restart: old credentials fail, new ones work, the selected pair is kept until renominated")
    func restart() {
        var agent = Self.agent()
        _ = agent.receive(Self.check(useCandidate: true), from: Self.peer, now: Self.t0)
        agent.restart(localUfrag: "relay2", localPassword: "newrelaypassword0123456", remoteUfrag: "peer2",
                      remotePassword: "newpeerpassword012345678")
        #expect(agent.selectedAddress == Self.peer)
        #expect(agent.receive(Self.check(), from: Self.peer, now: Self.t0).error == .unauthenticated)
        let renewed = agent.receive(Self.check(username: "relay2:peer2", password: "newrelaypassword0123456", useCandidate: true),
                                    from: Self.otherPeer, now: Self.t0 + .seconds(1))
        #expect(renewed.nominatedAddress == Self.otherPeer)
        #expect(agent.selectedAddress == Self.otherPeer)
    }

    @Test("Mutated checks never trap and never nominate without a valid signature")
    func mutatedChecks() {
        var generator = SplitMix64(seed: 8445)
        var agent = Self.agent()
        let seed = Self.check(useCandidate: true)
        let integrityEnd = seed.count - 8
        for _ in 0..<10_000 {
            var bytes = seed
            let index = Int(generator.next() % UInt64(bytes.count))
            let flip = UInt8(truncatingIfNeeded: generator.next()) | 1
            bytes[index] ^= flip
            let result = agent.receive(bytes, from: Self.peer, now: Self.t0)
            // MESSAGE-INTEGRITY covers everything before it. After it sits only FINGERPRINT: a
            // changed value fails the fingerprint check, but a changed type turns it into an
            // unknown attribute after MESSAGE-INTEGRITY, which RFC 8489 §14.5 says to ignore,
            // so the (still authentic) check goes through.
            if index < integrityEnd {
                #expect(result.nominatedAddress == nil, "byte \(index) ^ \(flip)")
            }
        }
    }
}
