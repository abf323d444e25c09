import OnAirCrypto
import OnAirDTLS
import OnAirSTUN
import OnAirWire
import Testing
@testable import OnAirWebRTC

/// A full-ICE answerer (Pion, libwebrtc) checks us too (RFC 8445 §7.3); the client must answer
/// those checks like any ICE agent, and check a peer-reflexive source itself.
@Suite("ClientPeerSession answers a full-ICE peer's checks")
struct ClientPeerSessionCheckTests {
    static let peer = TransportAddress(host: "198.51.100.7", port: 41_000)!
    static let password = "clientpassword0123456789"

    func makeClient() throws -> ClientPeerSession {
        let certificate = try DTLSCertificate.generateECDSA()
        return try ClientPeerSession(ClientPeerSessionParameters(
            localUfrag: "clientufrag", localPassword: Self.password, remoteUfrag: "peerufrag", remotePassword: "peerpassword0123456789",
            remoteCandidates: [TransportAddress(host: "203.0.113.5", port: 10_000)!], certificate: certificate,
            remoteFingerprint: certificate.fingerprint, dtlsRole: .server), now: .seconds(1))
    }

    func check(username: String = "clientufrag:peerufrag", key: String = password,
               attributes extra: [STUNAttribute] = [.iceControlled(tieBreaker: 42)], priority: Bool = true) -> (STUNMessage, [UInt8]) {
        var attributes: [STUNAttribute] = [.username(username)]
        if priority { attributes.append(.priority(0x6E00_01FF)) }
        attributes += extra
        let request = STUNMessage(type: .bindingRequest, transactionID: Array(1...12), attributes: attributes)
        return (request, request.encode(integrityKey: Array(key.utf8), fingerprint: true))
    }

    func replies(_ client: ClientPeerSession, to bytes: [UInt8]) throws -> [(STUNMessage, [UInt8], TransportAddress)] {
        var events: [PeerEvent] = []
        client.receive(bytes, from: Self.peer, now: .seconds(1), events: &events)
        return try events.compactMap { event in
            guard case .send(let reply, let address) = event, STUNMessage.isSTUN(reply) else { return nil }
            let message = try STUNMessage.parse(reply)
            return message.type.messageClass == .request ? nil : (message, reply, address)
        }
    }

    @Test("A valid check gets a signed success with XOR-MAPPED-ADDRESS, and we check that address too")
    func answersValidCheck() throws {
        let client = try makeClient()
        let (request, bytes) = check()
        var events: [PeerEvent] = []
        client.receive(bytes, from: Self.peer, now: .seconds(1), events: &events)
        let sent = events.compactMap { event -> ([UInt8], TransportAddress)? in
            if case .send(let b, let a) = event { (b, a) } else { nil }
        }
        let response = try #require(sent.first { (try? STUNMessage.parse($0.0))?.type == .bindingSuccessResponse })
        let message = try STUNMessage.parse(response.0)
        #expect(response.1 == Self.peer)
        #expect(message.transactionID == request.transactionID)
        #expect(message.xorMappedAddress == Self.peer)
        #expect(STUNMessage.verifyMessageIntegrity(response.0, key: Array(Self.password.utf8)))
        #expect(STUNMessage.verifyFingerprint(response.0))
        #expect(client.checksAnswered == 1)
        // RFC 8445 §7.3.1.3: the source becomes a peer-reflexive candidate we check (paced by Ta).
        var later: [PeerEvent] = []
        client.poll(now: .seconds(2), events: &later)
        client.poll(now: .seconds(3), events: &later)
        let checked = later.compactMap { event -> TransportAddress? in if case .send(_, let a) = event { a } else { nil } }
        #expect(checked.contains(Self.peer))
    }

    @Test("Wrong password or wrong USERNAME: 401 without MESSAGE-INTEGRITY",
          arguments: [("clientufrag:peerufrag", "wrongpassword0123456789"), ("someoneelse:peerufrag", password)])
    func rejectsUnauthenticated(username: String, key: String) throws {
        let client = try makeClient()
        let replies = try replies(client, to: check(username: username, key: key).1)
        #expect(replies.count == 1)
        #expect(replies.first?.0.errorCode?.code == 401)
        #expect(replies.first?.0.messageIntegrity == nil)
        #expect(client.checksAnswered == 0)
    }

    @Test("A peer that also claims controlling gets 487 Role Conflict, signed")
    func roleConflict() throws {
        let client = try makeClient()
        let replies = try replies(client, to: check(attributes: [.iceControlling(tieBreaker: .max)]).1)
        #expect(replies.first?.0.errorCode?.code == 487)
        #expect(replies.first.map { STUNMessage.verifyMessageIntegrity($0.1, key: Array(Self.password.utf8)) } == true)
    }

    @Test("A check without PRIORITY is a 400 (RFC 8445 §7.1.1)")
    func missingPriority() throws {
        let client = try makeClient()
        let replies = try replies(client, to: check(priority: false).1)
        #expect(replies.first?.0.errorCode?.code == 400)
    }

    @Test("DTLS and SRTP from an address that never passed a check are ignored")
    func ignoresUnvalidatedSources() throws {
        let client = try makeClient()
        var events: [PeerEvent] = []
        // A DTLS ClientHello-looking record (content type 22) and an RTP packet from a stranger.
        client.receive([22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 60), from: Self.peer, now: .seconds(1), events: &events)
        client.receive([0x80, 96] + [UInt8](repeating: 0, count: 40), from: Self.peer, now: .seconds(1), events: &events)
        #expect(events.isEmpty)
        #expect(client.state == .connecting)
    }
}
