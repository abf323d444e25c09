import OnAirCrypto
import OnAirDTLS
import OnAirWire
import Testing

@Suite("DTLS handshake between our own endpoints")
struct DTLSHandshakeTests {
    /// A client and a server that each expect the other's real fingerprint, as SDP would say.
    static func makeLink(clientCertificate: DTLSCertificate? = nil,
                         clientProfiles: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
                         serverProfiles: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80],
                         mtu: Int = 1200) throws -> LoopbackLink {
        let clientCertificate = try clientCertificate ?? DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: serverCertificate.fingerprint,
                                      profiles: clientProfiles, mtu: mtu)
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: clientCertificate.fingerprint,
                                      profiles: serverProfiles, mtu: mtu)
        return LoopbackLink(client: client, server: server)
    }

    /// RFC 5764 §4.2: each side's local key is the other's remote key.
    static func expectCrosswise(_ client: DTLSSRTPKeys, _ server: DTLSSRTPKeys, profile: SRTPProfile) {
        #expect(client.profile == profile)
        #expect(server.profile == profile)
        #expect(client.localMasterKey.count == profile.keyLength)
        #expect(client.localMasterSalt.count == profile.saltLength)
        #expect(client.localMasterKey == server.remoteMasterKey)
        #expect(client.localMasterSalt == server.remoteMasterSalt)
        #expect(client.remoteMasterKey == server.localMasterKey)
        #expect(client.remoteMasterSalt == server.localMasterSalt)
        #expect(client.localMasterKey != client.remoteMasterKey)
        #expect(client.localMasterSalt != client.remoteMasterSalt)
    }

    @Test("AES-GCM profile preferred when both offer it; ECDHE-ECDSA cipher")
    func gcmHandshake() throws {
        let link = try Self.makeLink()
        link.handshake()
        let clientKeys = try #require(link.clientKeys)
        let serverKeys = try #require(link.serverKeys)
        Self.expectCrosswise(clientKeys, serverKeys, profile: .aeadAes128Gcm)
        #expect(link.client.isConnected && link.server.isConnected)
        #expect(link.client.srtpKeys == clientKeys)
        let cipher = try #require(link.client.cipherSuiteName)
        #expect(cipher.hasPrefix("ECDHE-ECDSA-"))
        #expect(link.server.cipherSuiteName == cipher)
        #expect(link.datagrams.allSatisfy { $0.count <= 1200 })
        #expect(link.client.nextTimeout == nil)
    }

    @Test("Only AES_CM_128_HMAC_SHA1_80 offered: that profile, 14-byte salts")
    func cmHandshake() throws {
        let link = try Self.makeLink(clientProfiles: [.aes128CmHmacSha1_80])
        link.handshake()
        let clientKeys = try #require(link.clientKeys)
        let serverKeys = try #require(link.serverKeys)
        Self.expectCrosswise(clientKeys, serverKeys, profile: .aes128CmHmacSha1_80)
    }

    @Test("Server preference wins when the client offers both in the other order")
    func serverPreference() throws {
        let link = try Self.makeLink(clientProfiles: [.aes128CmHmacSha1_80, .aeadAes128Gcm],
                                     serverProfiles: [.aeadAes128Gcm, .aes128CmHmacSha1_80])
        link.handshake()
        let keys = try #require(link.clientKeys)
        #expect(keys.profile == .aeadAes128Gcm)
    }

    @Test("RSA-certificate client (like GStreamer) with an ECDSA server")
    func rsaClient() throws {
        let link = try Self.makeLink(clientCertificate: try DTLSCertificate.generateRSA(bits: 2048))
        link.handshake()
        let clientKeys = try #require(link.clientKeys)
        let serverKeys = try #require(link.serverKeys)
        Self.expectCrosswise(clientKeys, serverKeys, profile: .aeadAes128Gcm)
    }

    @Test("ECDHE-RSA cipher when the server's certificate is RSA")
    func rsaServer() throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let serverCertificate = try DTLSCertificate.generateRSA()
        let client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                      expectedPeerFingerprint: serverCertificate.fingerprint)
        let server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                      expectedPeerFingerprint: clientCertificate.fingerprint)
        let link = LoopbackLink(client: client, server: server)
        link.handshake()
        #expect(link.clientKeys != nil && link.serverKeys != nil)
        #expect(client.cipherSuiteName?.hasPrefix("ECDHE-RSA-") == true)
    }

    @Test("A small MTU splits the flights; no datagram exceeds it")
    func smallMTU() throws {
        let link = try Self.makeLink(clientCertificate: try DTLSCertificate.generateRSA(), mtu: 400)
        link.handshake()
        #expect(link.clientKeys != nil && link.serverKeys != nil)
        #expect(link.datagrams.allSatisfy { $0.count <= 400 })
        #expect(link.datagrams.contains { $0.count > 300 }, "records should be packed, not one per datagram")
    }

    @Test("Several records share a datagram at the default MTU")
    func flightsArePacked() throws {
        let link = try Self.makeLink()
        link.handshake()
        // ClientHello, server flight, client flight, server CCS+Finished: an ECDSA handshake
        // fits in one datagram per flight.
        #expect(link.datagrams.count == 4)
    }

    @Test("close_notify: the peer reports .closed")
    func closeNotify() throws {
        let link = try Self.makeLink()
        link.handshake()
        let outputs = link.client.close(now: .zero)
        #expect(outputs.count == 1)
        link.absorb(outputs, fromClient: true)
        link.pump()
        #expect(link.serverEvents.last == .closed)
        #expect(!link.server.isConnected)
        #expect(link.client.receive([23, 0xFE, 0xFD], now: .zero).isEmpty)
    }

    @Test("Application data both ways")
    func applicationData() throws {
        let link = try Self.makeLink()
        link.handshake()
        #expect(link.client.send(applicationData: []).isEmpty)
        link.absorb(link.client.send(applicationData: Array("hello server".utf8)), fromClient: true)
        link.absorb(link.server.send(applicationData: Array("hello client".utf8)), fromClient: false)
        link.pump()
        #expect(link.serverEvents.last == .applicationData(Array("hello server".utf8)))
        #expect(link.clientEvents.last == .applicationData(Array("hello client".utf8)))
    }

    @Test("Nothing to send before the handshake; a server's start sends nothing")
    func idleEndpoints() throws {
        let link = try Self.makeLink()
        #expect(link.server.start(now: .zero).isEmpty)
        #expect(link.client.send(applicationData: [1, 2, 3]).isEmpty)
        #expect(!link.client.isConnected)
        #expect(link.client.srtpKeys == nil)
    }
}
