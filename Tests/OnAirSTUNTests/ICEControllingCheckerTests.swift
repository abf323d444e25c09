import OnAirWire
import Testing
@testable import OnAirSTUN

@Suite("ICEControllingChecker against ICELiteAgent, in memory")
struct ICEControllingCheckerTests {
    typealias Net = ICEInMemoryNetwork
    static let relayPassword = "relaypassword0123456789"
    static let start = MonoTime.seconds(1000)

    static func agent() -> ICELiteAgent {
        ICELiteAgent(localUfrag: "relay", localPassword: relayPassword, remoteUfrag: "bcast",
                     remotePassword: "bcastpassword0123456789")
    }

    static func checker(remoteUfrag: String = "relay", remotePassword: String = relayPassword,
                        candidates: [TransportAddress] = [Net.deadAddress, Net.agentAddress]) -> ICEControllingChecker {
        ICEControllingChecker(localUfrag: "bcast", localPassword: "bcastpassword0123456789",
                              remoteUfrag: remoteUfrag, remotePassword: remotePassword,
                              remoteCandidates: candidates, tieBreaker: 0xDEAD_BEEF_0000_0001)
    }

    static func seconds(_ time: MonoTime) -> Double { (time - start) / .milliseconds(1) / 1000 }

    @Test("Checks, nomination and selection on both sides; the dead candidate is abandoned")
    func nominates() throws {
        var net = Net(checker: Self.checker(), agent: Self.agent(), start: Self.start)
        net.run(until: Self.start + .seconds(2))
        #expect(net.checker.state == .connected(Net.agentAddress))
        #expect(net.checker.selectedAddress == Net.agentAddress)
        #expect(net.agent.selectedAddress == Net.checkerAddress)
        #expect(net.checkerEvents.prefix(2) == [.checkSucceeded(Net.agentAddress), .selected(Net.agentAddress)])
        #expect(net.agentResults.compactMap(\.nominatedAddress) == [Net.checkerAddress])
        #expect(net.agentResults.allSatisfy { $0.error == nil })
        // Pacing (Ta 50 ms): the dead candidate is tried first, the live one 50 ms later.
        #expect(net.sendTimes(to: Net.deadAddress).first == Self.start)
        #expect(net.sendTimes(to: Net.agentAddress).first == Self.start + .milliseconds(50))
        // Selection cancels the outstanding check to the dead candidate (its first retransmit would be at 0.5 s).
        #expect(net.sendTimes(to: Net.deadAddress).count == 1)

        // The request as sent (RFC 8445 §7.2.2).
        let request = try STUNMessage.parse(try #require(net.sent.first { $0.datagram.address == Net.agentAddress }).datagram.bytes)
        #expect(request.type == .bindingRequest)
        #expect(request.username == "relay:bcast")
        #expect(request.priority == 0x6EFF_FFFF)
        #expect(request.iceControlling == 0xDEAD_BEEF_0000_0001)
        #expect(!request.useCandidate)
    }

    @Test("Consent checks every 4-6 s keep both sides fresh; when the peer vanishes both expire after 30 s")
    func consent() throws {
        var net = Net(checker: Self.checker(candidates: [Net.agentAddress]), agent: Self.agent(), start: Self.start)
        net.run(until: Self.start + .seconds(120))
        let selectedAt = Self.start
        let consentTimes = net.sendTimes(to: Net.agentAddress).filter { $0 > selectedAt }
        #expect(consentTimes.count >= 19)
        for (earlier, later) in zip([selectedAt] + consentTimes, consentTimes) {
            let gap = later - earlier
            #expect(gap >= .seconds(4) && gap <= .seconds(6), "consent gap \(gap)")
        }
        #expect(net.checkerEvents.filter { if case .consentRefreshed = $0 { true } else { false } }.count == consentTimes.count)
        #expect(!net.agent.consentExpired(now: net.now))
        #expect(!net.checker.consentExpired(now: net.now))
        let lastRefresh = try #require(net.agent.lastActivity)
        #expect(lastRefresh == consentTimes.last)

        net.agentReachable = false
        net.run(until: lastRefresh + .seconds(45))
        #expect(net.agent.lastActivity == lastRefresh)
        #expect(!net.agent.consentExpired(now: lastRefresh + .milliseconds(29_999)))
        #expect(net.agent.consentExpired(now: lastRefresh + .seconds(30)))
        #expect(!net.checker.consentExpired(now: lastRefresh + .milliseconds(29_999)))
        #expect(net.checker.consentExpired(now: lastRefresh + .seconds(30)))
        // Consent checks keep going out while unanswered (RFC 7675 §5.1 stops sending media, not checks).
        #expect(net.sendTimes(to: Net.agentAddress).filter { $0 > lastRefresh }.count >= 7)
    }

    @Test("Wrong password: 401, the checker fails and nothing is nominated")
    func wrongPassword() {
        var net = Net(checker: Self.checker(remotePassword: "notthepassword0123456789", candidates: [Net.agentAddress]),
                      agent: Self.agent(), start: Self.start)
        net.run(until: Self.start + .seconds(60))
        #expect(net.agentResults.first?.error == .unauthenticated)
        #expect(net.checkerEvents == [.checkFailed(Net.agentAddress, .unauthenticated)])
        #expect(net.checker.state == .failed)
        #expect(net.checker.selectedAddress == nil)
        #expect(net.agent.selectedAddress == nil)
        #expect(net.checker.nextTimeout == nil)
    }

    @Test("Bad USERNAME: 401, no nomination")
    func badUsername() {
        var net = Net(checker: Self.checker(remoteUfrag: "someoneelse", candidates: [Net.agentAddress]),
                      agent: Self.agent(), start: Self.start)
        net.run(until: Self.start + .seconds(60))
        #expect(net.agentResults.map(\.error) == [.unauthenticated])
        #expect(net.checker.state == .failed)
        #expect(net.agent.selectedAddress == nil)
    }

    @Test("Retransmissions follow RFC 8489 §6.2.1: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s, failure at 39.5 s")
    func retransmissionSchedule() {
        var net = Net(checker: Self.checker(candidates: [Net.deadAddress]), agent: Self.agent(), start: Self.start)
        net.run(until: Self.start + .seconds(120))
        #expect(net.sendTimes(to: Net.deadAddress).map(Self.seconds) == [0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5])
        #expect(net.checker.state == .failed)
        #expect(Self.seconds(net.now) == 39.5)
        // Retransmissions repeat the same transaction.
        #expect(Set(net.sent.map(\.datagram.bytes)).count == 1)
    }

    @Test("Lost responses are recovered by retransmission")
    func lostResponses() {
        var net = Net(checker: Self.checker(candidates: [Net.agentAddress]), agent: Self.agent(), start: Self.start)
        net.dropResponses = 2
        net.run(until: Self.start + .seconds(5))
        #expect(net.checker.selectedAddress == Net.agentAddress)
        #expect(net.agent.selectedAddress == Net.checkerAddress)
        #expect(net.sendTimes(to: Net.agentAddress).prefix(3).map(Self.seconds) == [0, 0.5, 1.5])
    }

    @Test("Trickled candidate: idle without candidates, connects once one is added")
    func trickle() {
        var checker = Self.checker(candidates: [])
        #expect(checker.nextTimeout == nil)
        #expect(checker.poll(now: Self.start).isEmpty)
        checker.addRemoteCandidate(Net.agentAddress)
        checker.addRemoteCandidate(Net.agentAddress)
        var net = Net(checker: checker, agent: Self.agent(), start: Self.start)
        net.run(until: Self.start + .seconds(1))
        #expect(net.checker.selectedAddress == Net.agentAddress)
        #expect(net.sendTimes(to: Net.agentAddress).count == 2) // one check, one nomination
    }

    @Test("Forged or misdirected responses: bad signature is dropped, wrong source fails the check")
    func responseValidation() throws {
        var checker = Self.checker(candidates: [Net.agentAddress])
        var agent = Self.agent()
        let request = try #require(checker.poll(now: Self.start).first)
        let reply = try #require(agent.receive(request.bytes, from: Net.checkerAddress, now: Self.start).datagram)

        // Same response signed with another key: dropped, the transaction stays open.
        let parsed = try STUNMessage.parse(reply.bytes)
        let forged = parsed.encode(integrityKey: Array("guess".utf8), fingerprint: true)
        #expect(checker.receive(forged, from: Net.agentAddress, now: Self.start) == nil)
        #expect(checker.receive(reply.bytes.dropLast(4) + [0, 0, 0, 0], from: Net.agentAddress, now: Self.start) == nil)
        #expect(checker.state == .checking)

        // Authentic, but from an address we did not send to: §7.2.5.2.1 non-symmetric, failed.
        #expect(checker.receive(reply.bytes, from: Net.deadAddress, now: Self.start) == .checkFailed(Net.agentAddress, nil))
        #expect(checker.state == .failed)
        // Once the transaction is gone, a replay is ignored.
        #expect(checker.receive(reply.bytes, from: Net.agentAddress, now: Self.start) == nil)
    }
}
