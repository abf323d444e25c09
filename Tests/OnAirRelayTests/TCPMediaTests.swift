import Foundation
import HummingbirdTesting
import OnAirSDP
import OnAirSTUN
import OnAirWire
import Testing
@testable import OnAirRelay

/// The relay's ICE-TCP port (RFC 6544) spoken to with a plain TCP socket: candidates in the
/// answer, connectivity checks in RFC 4571 frames, the connection tied to its session both
/// ways, and the bounds on connections that never authenticate.
@Suite("Media plane over ICE-TCP")
struct TCPMediaTests {
    func metric(_ client: any TestClientProtocol, _ prefix: String) async throws -> Double {
        let metrics = try await client.get("/metrics").text
        let line = try #require(metrics.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }, "no \(prefix)")
        return try #require(Double(line.split(separator: " ").last ?? ""))
    }

    /// The STUN response to `id` among the packets that arrive.
    func response(to id: [UInt8], on connection: TCPTestClient) -> (message: STUNMessage, raw: [UInt8])? {
        for _ in 0..<10 {
            guard let packet = connection.receive() else { return nil }
            if let message = try? STUNMessage.parse(packet), message.transactionID == id { return (message, packet) }
        }
        return nil
    }

    /// A connection to the relay's TCP port whose check for a new publisher session passed.
    func authenticatedConnection(_ relay: TestRelay, _ client: any TestClientProtocol,
                                 nominate: Bool) async throws -> (TCPTestClient, CreatedSession) {
        let created = try await client.publish()
        let (ufrag, password) = try MediaPlaneTests.relayCredentials(created)
        let connection = try TCPTestClient(port: relay.tcpPort)
        let check = MediaPlaneTests.check(relayUfrag: ufrag, clientUfrag: TestOffers.clientUfrag, password: password, nominate: nominate)
        #expect(connection.send(check.bytes))
        let (reply, raw) = try #require(response(to: check.id, on: connection), "no answer to the check over TCP")
        #expect(reply.type == .bindingSuccessResponse)
        #expect(STUNMessage.verifyMessageIntegrity(raw, key: Array(password.utf8)))
        #expect(reply.xorMappedAddress?.port == connection.port)
        return (connection, created)
    }

    @Test("the answer offers a passive TCP host candidate on the worker's TCP port, below the UDP one (RFC 6544 §4.2)")
    func passiveCandidate() async throws {
        try await withRelay { relay, client in
            for created in [try await client.publish(), try await client.watch()] {
                let answer = try SessionDescription.parse(created.answer)
                let candidates = answer.media[0].candidates
                let udp = try #require(candidates.first { $0.transport == "udp" })
                let tcp = try #require(candidates.first { $0.transport == "tcp" }, "\(created.answer)")
                #expect(tcp.tcpType == "passive" && tcp.type == .host)
                #expect(Int(tcp.port) == relay.tcpPort && Int(udp.port) == relay.udpPort)
                #expect(tcp.priority < udp.priority && tcp.foundation != udp.foundation)
            }
        }
    }

    @Test("ICE-TCP off: UDP candidates only, no TCP port")
    func off() async throws {
        try await withRelay({ $0.media.iceTCP = false }) { relay, client in
            let created = try await client.publish()
            #expect(!created.answer.contains(" tcp "), "\(created.answer)")
            #expect(relay.workers.tcpPorts.isEmpty)
        }
    }

    @Test("a check in an RFC 4571 frame: a framed, authenticated success response; the nominated TCP pair is selected")
    func checkOverTCP() async throws {
        try await withRelay { relay, client in
            let (connection, _) = try await authenticatedConnection(relay, client, nominate: true)
            let snapshot = try await client.get("/api/streams/42").text
            #expect(snapshot.contains("tcp:127.0.0.1:\(connection.port)"), "\(snapshot)")
            #expect(try await metric(client, "onair_tcp_connections") == 1)
        }
    }

    @Test("the selected TCP connection closing ends its session; ending the session closes its connection")
    func lifetimeFollowsConnection() async throws {
        try await withRelay { relay, client in
            let (connection, _) = try await authenticatedConnection(relay, client, nominate: true)
            shutdown(connection.fd, Int32(SHUT_RDWR))
            var gone = false
            for _ in 0..<40 where !gone {
                try await Task.sleep(for: .milliseconds(50))
                gone = try await client.get("/api/streams/42").status == .notFound
            }
            #expect(gone, "the session outlived its TCP connection")

            let (second, created) = try await authenticatedConnection(relay, client, nominate: false)
            #expect(try await client.delete(created.location).status == .ok)
            #expect(second.closedByPeer(), "the connection outlived its session")
        }
    }

    @Test("a connection that never passes a check is closed at the connect timeout; one that sends too much at once")
    func unauthenticated() async throws {
        try await withRelay({ $0.limits.connectTimeoutSeconds = 1 }) { relay, client in
            // Closed at the 1 s timeout, not before; the margin after it is for a loaded machine
            // (the suite runs in parallel).
            let silent = try TCPTestClient(port: relay.tcpPort, receiveTimeoutMilliseconds: 8000)
            let started = Date()
            #expect(silent.closedByPeer())
            let elapsed = Date().timeIntervalSince(started)
            #expect(elapsed >= 0.9 && elapsed < 7, "closed \(elapsed) s after connecting, the connect timeout is 1 s")

            let talker = try TCPTestClient(port: relay.tcpPort, receiveTimeoutMilliseconds: 8000)
            let frame = [UInt8](repeating: 0, count: 1_000)
            for _ in 0..<80 { talker.send(frame) }
            #expect(talker.closedByPeer())
            #expect(try await metric(client, "onair_tcp_connections_unauthenticated_total{cause=\"timeout\"}") == 1)
            #expect(try await metric(client, "onair_tcp_connections_unauthenticated_total{cause=\"too_many_bytes\"}") == 1)
            // The relay still serves, and takes new connections. (Not a session's check: with a
            // 1 s connect timeout a session created on a loaded machine may end before it.)
            #expect(try await client.get("/healthz").status == .ok)
            let another = try TCPTestClient(port: relay.tcpPort)
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await metric(client, "onair_tcp_connections") == 1)
            _ = another
        }
    }

    @Test("connections over the cap are closed as they arrive")
    func cap() async throws {
        try await withRelay({ $0.media.tcpMaxConnections = 2 }) { relay, client in
            let held = [try TCPTestClient(port: relay.tcpPort), try TCPTestClient(port: relay.tcpPort)]
            try await Task.sleep(for: .milliseconds(100))
            let third = try TCPTestClient(port: relay.tcpPort, receiveTimeoutMilliseconds: 2000)
            #expect(third.closedByPeer())
            #expect(try await metric(client, "onair_tcp_connections_refused_total") == 1)
            #expect(try await metric(client, "onair_tcp_connections") == 2)
            _ = held
        }
    }
}
