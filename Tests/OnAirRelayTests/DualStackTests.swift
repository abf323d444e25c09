import Foundation
import HummingbirdTesting
import OnAirSDP
import OnAirSTUN
import OnAirWire
import Testing
@testable import OnAirRelay

/// `media.bind` with several addresses (IPv4 and IPv6 here, on loopback): a UDP socket and an
/// ICE-TCP listener per address per worker, on one port; candidates for each address; a peer
/// answered from the address it sent to, on either family.
@Suite("Media plane, dual stack")
struct DualStackTests {
    static func dualStack(_ config: inout RelayConfig) {
        config.media.bind = BindAddresses(["::1", "127.0.0.1"])
    }

    @Test("one port per worker on every address; UDP and passive TCP candidates for each, IPv6 first (RFC 8421 §4)")
    func candidates() async throws {
        try await withRelay(Self.dualStack) { relay, client in
            _ = try await client.publish()
            let answer = try SessionDescription.parse(try await client.watch().answer)
            let candidates = answer.media[0].candidates
            let udp = candidates.filter(\.isUDP), tcp = candidates.filter { !$0.isUDP }
            #expect(udp.map(\.address) == ["::1", "127.0.0.1"] && tcp.map(\.address) == ["::1", "127.0.0.1"], "\(candidates)")
            #expect(udp.allSatisfy { Int($0.port) == relay.udpPort } && tcp.allSatisfy { Int($0.port) == relay.tcpPort })
            #expect(udp[0].priority > udp[1].priority && tcp[0].priority > tcp[1].priority)
            #expect(tcp.allSatisfy { $0.priority < udp[1].priority })
            #expect(relay.workers.sockets[0].count == 2 && relay.workers.listeners[0].count == 2)
        }
    }

    @Test("a check over IPv6 and one over IPv4 to one session: each answered from the address it reached",
          arguments: [true, false])
    func checks(ipv6First: Bool) async throws {
        try await withRelay(Self.dualStack) { relay, client in
            let created = try await client.publish()
            let (ufrag, password) = try MediaPlaneTests.relayCredentials(created)
            for ipv6 in [ipv6First, !ipv6First] {
                let socket = try UDPTestClient(ipv6: ipv6)
                let check = MediaPlaneTests.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: password,
                                                  nominate: ipv6)
                socket.send(check.bytes, toPort: relay.udpPort)
                let (response, raw) = try #require(MediaPlaneTests.response(to: check.id, on: socket), "no answer (ipv6 \(ipv6))")
                #expect(response.type == .bindingSuccessResponse)
                #expect(STUNMessage.verifyMessageIntegrity(raw, key: Array(password.utf8)))
                #expect(response.xorMappedAddress == socket.address)
            }
            // The nominated pair, the IPv6 one, is the session's.
            let snapshot = try await client.get("/api/streams/42").text
            #expect(snapshot.contains("[::1]:"), "\(snapshot)")
        }
    }

    @Test("ICE-TCP over IPv6: a framed check on the IPv6 listener is answered on its connection")
    func tcpOverIPv6() async throws {
        try await withRelay(Self.dualStack) { relay, client in
            let created = try await client.publish()
            let (ufrag, password) = try MediaPlaneTests.relayCredentials(created)
            let connection = try TCPTestClient(port: relay.tcpPort, ipv6: true)
            let check = MediaPlaneTests.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: password, nominate: true)
            #expect(connection.send(check.bytes))
            var answered = false
            for _ in 0..<10 where !answered {
                guard let packet = connection.receive() else { break }
                if let message = try? STUNMessage.parse(packet), message.transactionID == check.id {
                    answered = message.type == .bindingSuccessResponse && STUNMessage.verifyMessageIntegrity(packet, key: Array(password.utf8))
                }
            }
            #expect(answered, "no authenticated answer over IPv6 TCP")
            let snapshot = try await client.get("/api/streams/42").text
            #expect(snapshot.contains("tcp:[::1]:\(connection.port)"), "\(snapshot)")
        }
    }
}
