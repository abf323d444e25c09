import Glibc
import OnAirCrypto
import OnAirDTLS
import OnAirWire
import Testing
import OnAirTestSupport

@Suite("DTLS failures, loss and hostile input")
struct DTLSFailureTests {
    @Test("Server rejects a client whose certificate does not match the SDP fingerprint")
    func clientFingerprintMismatch() throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let impostorFingerprint = try DTLSCertificate.generateECDSA(validity: .seconds(3600)).fingerprint
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: serverCertificate.fingerprint)
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: impostorFingerprint)
        let link = LoopbackLink(client: client, server: server)
        link.handshake()
        #expect(link.clientKeys == nil && link.serverKeys == nil)
        let serverReason = try #require(LoopbackLink.failure(in: link.serverEvents))
        #expect(serverReason.contains("fingerprint mismatch"))
        #expect(serverReason.contains(impostorFingerprint.sdpValue))
        // The server's bad_certificate alert reaches the client, which fails too.
        let clientReason = try #require(LoopbackLink.failure(in: link.clientEvents))
        #expect(clientReason.contains("bad certificate"))
        #expect(!client.isConnected && !server.isConnected)
        #expect(client.nextTimeout == nil && server.nextTimeout == nil)
    }

    @Test("Client rejects a server whose certificate does not match, with a sha-1 fingerprint")
    func serverFingerprintMismatch() throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        var wrong = clientCertificate.fingerprintSHA256.prefix(20).map { $0 }
        wrong[0] ^= 1
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: try PeerFingerprint(algorithm: "SHA-1", bytes: wrong))
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: clientCertificate.fingerprint)
        let link = LoopbackLink(client: client, server: server)
        link.handshake()
        #expect(link.clientKeys == nil && link.serverKeys == nil)
        let reason = try #require(LoopbackLink.failure(in: link.clientEvents))
        #expect(reason.contains("fingerprint mismatch") && reason.contains("sha-1"))
        #expect(LoopbackLink.failure(in: link.serverEvents) != nil)
    }

    @Test("Matching sha-384 and sha-512 fingerprints are accepted")
    func otherHashFunctions() throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        // The independent digest of the PEM's DER, via OnAirCrypto.
        let serverDER = try #require(TestPEM.der(serverCertificate.certificatePEM))
        let clientDER = try #require(TestPEM.der(clientCertificate.certificatePEM))
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: try PeerFingerprint(algorithm: "sha-384", bytes: Digest.sha384(serverDER)))
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: try PeerFingerprint(algorithm: "sha-512", bytes: Digest.sha512(clientDER)))
        let link = LoopbackLink(client: client, server: server)
        link.handshake()
        #expect(link.clientKeys != nil && link.serverKeys != nil)
    }

    @Test("No common SRTP profile: both sides fail, no keys")
    func noCommonProfile() throws {
        let link = try DTLSHandshakeTests.makeLink(clientProfiles: [.aeadAes128Gcm], serverProfiles: [.aes128CmHmacSha1_80])
        link.handshake()
        #expect(link.clientKeys == nil && link.serverKeys == nil)
        let reason = try #require(LoopbackLink.failure(in: link.clientEvents))
        #expect(reason.contains("no SRTP profile"))
        #expect(LoopbackLink.failure(in: link.serverEvents)?.contains("no SRTP profile") == true)
    }

    @Test("A lost ClientHello is retransmitted after the timer and the handshake completes")
    func lostFirstFlight() async throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: serverCertificate.fingerprint,
                                      initialRetransmitTimeout: .milliseconds(100))
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: clientCertificate.fingerprint)
        let link = LoopbackLink(client: client, server: server)
        let start = MonoTime.now()
        let first = client.start(now: start)
        #expect(first.count == 1)
        let deadline = try #require(client.nextTimeout)
        #expect(deadline > start && deadline <= start + .milliseconds(100))
        // Too early: nothing to retransmit yet.
        #expect(client.handleTimeout(now: start).isEmpty)

        try await Task.sleep(for: .milliseconds(150))
        let retransmission = client.handleTimeout(now: .now())
        #expect(retransmission.count == 1)
        // The timer doubles (RFC 6347 §4.2.4.1).
        let second = try #require(client.nextTimeout)
        #expect(second - MonoTime.now() > .milliseconds(120))
        link.absorb(retransmission, fromClient: true)
        link.pump()
        #expect(link.clientKeys != nil && link.serverKeys != nil)
    }

    @Test("A lost final server flight is recovered when the client retransmits its Finished")
    func lostLastFlight() async throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: serverCertificate.fingerprint,
                                      initialRetransmitTimeout: .milliseconds(100))
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: clientCertificate.fingerprint)
        let link = LoopbackLink(client: client, server: server)
        let hello = client.start(now: .zero)
        let serverFlight = server.receive(try #require(Self.datagrams(hello).first), now: .zero)
        var clientFlight: [DTLSOutput] = []
        for datagram in Self.datagrams(serverFlight) { clientFlight += client.receive(datagram, now: .zero) }
        var finalFlight: [DTLSOutput] = []
        for datagram in Self.datagrams(clientFlight) { finalFlight += server.receive(datagram, now: .zero) }
        #expect(LoopbackLink.keys(in: finalFlight) != nil, "server is done")
        #expect(!client.isConnected, "its last flight is lost")

        try await Task.sleep(for: .milliseconds(150))
        link.absorb(client.handleTimeout(now: .now()), fromClient: true)
        link.pump()
        #expect(client.isConnected && link.clientKeys == server.srtpKeys.map(Self.mirrored))
    }

    @Test("Random datagrams never trap, and a handshake still completes afterwards")
    func randomGarbage() throws {
        let link = try DTLSHandshakeTests.makeLink()
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<300 {
            let length = Int(generator.next() % 1_500)
            let datagram = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = link.server.receive(datagram, now: .zero)
        }
        link.handshake()
        #expect(link.clientKeys != nil && link.serverKeys != nil)
        // After the handshake, garbage and forged records are dropped (bad MAC) silently.
        for _ in 0..<300 {
            let length = Int(generator.next() % 200)
            var datagram = [23, 0xFE, 0xFD, 0, 1] + (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if generator.next() % 2 == 0, datagram.count > 13 { datagram[11] = 0; datagram[12] = UInt8(datagram.count - 13) }
            #expect(link.client.receive(datagram, now: .zero).isEmpty)
            #expect(link.server.receive(datagram, now: .zero).isEmpty)
        }
        #expect(link.client.isConnected && link.server.isConnected)
    }

    @Test("Mutated handshake datagrams never trap")
    func mutatedHandshake() throws {
        let reference = try DTLSHandshakeTests.makeLink()
        reference.handshake()
        var generator = SplitMix64(seed: 42)
        for round in 0..<40 {
            let link = try DTLSHandshakeTests.makeLink()
            for (index, original) in reference.datagrams.enumerated() {
                var datagram = original
                for _ in 0..<(1 + round % 4) {
                    let position = Int(generator.next() % UInt64(datagram.count))
                    datagram[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                }
                if generator.next() % 3 == 0 { datagram = Array(datagram.prefix(Int(generator.next() % UInt64(datagram.count)))) }
                // Even indices travel client->server in a full handshake, odd the other way.
                _ = index % 2 == 0 ? link.server.receive(datagram, now: .zero) : link.client.receive(datagram, now: .zero)
            }
        }
    }

    static func datagrams(_ outputs: [DTLSOutput]) -> [[UInt8]] {
        outputs.compactMap { if case .send(let d) = $0 { return d } else { return nil } }
    }

    static func mirrored(_ keys: DTLSSRTPKeys) -> DTLSSRTPKeys {
        DTLSSRTPKeys(profile: keys.profile, localMasterKey: keys.remoteMasterKey, localMasterSalt: keys.remoteMasterSalt,
                     remoteMasterKey: keys.localMasterKey, remoteMasterSalt: keys.localMasterSalt)
    }
}
