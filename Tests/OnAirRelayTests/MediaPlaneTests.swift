import Foundation
import HummingbirdTesting
import OnAirCrypto
import OnAirSDP
import OnAirSTUN
import OnAirWire
import Testing
@testable import OnAirRelay

/// The UDP media port of a relay in the process, spoken to with plain datagrams: ICE
/// connectivity checks for a signalled session (RFC 8445 §7.3), and hostile input of every
/// RFC 7983 class, which must never stop the relay from serving.
@Suite("Media plane over UDP")
struct MediaPlaneTests {
    /// A Binding request as a full-ICE controlling peer sends it (RFC 8445 §7.1.1).
    static func check(relayUfrag: String, clientUfrag: String, password: String, nominate: Bool = false) -> (id: [UInt8], bytes: [UInt8]) {
        let id = SecureRandom.bytes(12)
        var attributes: [STUNAttribute] = [.username("\(relayUfrag):\(clientUfrag)"), .priority(1_853_824_767),
                                           .iceControlling(tieBreaker: 42)]
        if nominate { attributes.append(STUNAttribute(type: .useCandidate, value: [])) }
        let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
        return (id, message.encode(integrityKey: Array(password.utf8), fingerprint: true))
    }

    static func relayCredentials(_ created: CreatedSession) throws -> (ufrag: String, password: String) {
        let answer = try SessionDescription.parse(created.answer)
        return (try #require(answer.iceUfrag(for: answer.media[0])), try #require(answer.icePassword(for: answer.media[0])))
    }

    /// The STUN response to `id` among what arrives, skipping anything else.
    static func response(to id: [UInt8], on socket: UDPTestClient) -> (message: STUNMessage, raw: [UInt8])? {
        for _ in 0..<10 {
            guard let datagram = socket.receive() else { return nil }
            if let message = try? STUNMessage.parse(datagram), message.transactionID == id { return (message, datagram) }
        }
        return nil
    }

    func unroutable(_ client: any TestClientProtocol) async throws -> Double {
        let metrics = try await client.get("/metrics").text
        let line = try #require(metrics.split(separator: "\n").first { $0.hasPrefix("onair_udp_datagrams_unroutable_total ") })
        return try #require(Double(line.split(separator: " ").last ?? ""))
    }

    @Test("a connectivity check with the answer's credentials: an authenticated success response; the pair is selected")
    func connectivityCheck() async throws {
        try await withRelay { relay, client in
            let created = try await client.publish()
            let (ufrag, password) = try Self.relayCredentials(created)
            let socket = try UDPTestClient()
            let check = Self.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: password, nominate: true)
            socket.send(check.bytes, toPort: relay.udpPort)
            let (response, raw) = try #require(Self.response(to: check.id, on: socket), "no answer to the check")
            #expect(response.type == .bindingSuccessResponse)
            #expect(STUNMessage.verifyMessageIntegrity(raw, key: Array(password.utf8)))
            #expect(STUNMessage.verifyFingerprint(raw))
            #expect(response.xorMappedAddress == TransportAddress(host: "127.0.0.1", port: socket.port))
            // The relay now sends to that address.
            let snapshot = try await client.get("/api/streams/42").text
            #expect(snapshot.contains("127.0.0.1:\(socket.port)"), "\(snapshot)")
        }
    }

    @Test("a check with the wrong password: 401 Unauthenticated, nothing selected (RFC 8489 §9.1.3)")
    func wrongPassword() async throws {
        try await withRelay { relay, client in
            let created = try await client.publish()
            let (ufrag, _) = try Self.relayCredentials(created)
            let socket = try UDPTestClient()
            let check = Self.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: "not-the-password-at-all!", nominate: true)
            socket.send(check.bytes, toPort: relay.udpPort)
            if let reply = Self.response(to: check.id, on: socket) {
                #expect(reply.message.type.messageClass == .errorResponse)
                #expect(reply.message.errorCode?.code == 401)
            }
            let snapshot = try await client.get("/api/streams/42").text
            #expect(!snapshot.contains("127.0.0.1:\(socket.port)"), "\(snapshot)")
        }
    }

    @Test("hostile datagrams of every RFC 7983 class are dropped and counted; the relay keeps serving")
    func hostileDatagrams() async throws {
        try await withRelay { relay, client in
            let created = try await client.publish()
            let (ufrag, password) = try Self.relayCredentials(created)
            let attacker = try UDPTestClient(receiveTimeoutMilliseconds: 50)
            let before = try await unroutable(client)
            var generator = SystemRandomNumberGenerator()
            func random(_ count: Int, first: ClosedRange<UInt8>) -> [UInt8] {
                var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if count > 0 { bytes[0] = UInt8.random(in: first, using: &generator) }
                return bytes
            }
            var sent = 0
            for round in 0..<300 {
                let length = [1, 2, 12, 20, 100, 1200, 1500][round % 7]
                for range: ClosedRange<UInt8> in [0...3, 4...19, 20...63, 64...127, 128...191, 192...255] {
                    attacker.send(random(length, first: range), toPort: relay.udpPort)
                    sent += 1
                }
            }
            // STUN-shaped: a truncated header, a bogus USERNAME, our session's ufrag with a bad MAC.
            attacker.send([0x00, 0x01, 0x00, 0x00, 0x21, 0x12], toPort: relay.udpPort)
            attacker.send(Self.check(relayUfrag: "nobody", clientUfrag: "x", password: "y").bytes, toPort: relay.udpPort)
            var forged = Self.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: password).bytes
            forged[forged.count - 20] ^= 0xFF  // inside the MESSAGE-INTEGRITY HMAC
            attacker.send(forged, toPort: relay.udpPort)
            attacker.send([], toPort: relay.udpPort)
            attacker.send([UInt8](repeating: 0x80, count: 65_000), toPort: relay.udpPort)
            sent += 5
            while attacker.receive() != nil {}  // drain whatever the relay answered (STUN errors)

            // Still serving: the real peer's check is answered, HTTP works, the garbage was counted.
            let socket = try UDPTestClient()
            let check = Self.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: password, nominate: true)
            socket.send(check.bytes, toPort: relay.udpPort)
            let answer = try #require(Self.response(to: check.id, on: socket), "the relay stopped answering checks")
            #expect(answer.message.type == .bindingSuccessResponse)
            #expect(try await client.get("/api/streams/42").status == .ok)
            let after = try await unroutable(client)
            #expect(after - before >= Double(sent) * 0.5, "unroutable \(before) -> \(after) after \(sent) datagrams")
            _ = try await client.publish(room: "43")
        }
    }
}
