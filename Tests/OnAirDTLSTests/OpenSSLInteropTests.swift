import Foundation
import Glibc
import OnAirCrypto
import OnAirDTLS
import OnAirWire
import Testing
import OnAirTestSupport

/// Our endpoint against OpenSSL's own `s_server` / `s_client` over real UDP on 127.0.0.1,
/// with a certificate the openssl CLI made. The keys both sides export must be equal.
@Suite("Interop with the openssl CLI over UDP", .enabled(if: OpenSSLCLI.isAvailable))
struct OpenSSLInteropTests {
    /// A certificate and key made by the CLI, and its fingerprint as the CLI prints it.
    struct CLICertificate {
        let certificatePath: String
        let keyPath: String
        let fingerprint: PeerFingerprint

        init(in directory: URL, rsa: Bool) throws {
            certificatePath = directory.appendingPathComponent("cert.pem").path
            keyPath = directory.appendingPathComponent("key.pem").path
            let keyOptions = rsa ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
            let made = try OpenSSLCLI.run(["req", "-x509"] + keyOptions + ["-nodes", "-keyout", keyPath, "-out", certificatePath,
                                                                           "-subj", "/CN=openssl-cli", "-days", "1"])
            guard made.status == 0 else { throw UDPTestSocket.SocketError(description: "openssl req: \(made.output)") }
            let printed = try OpenSSLCLI.run(["x509", "-noout", "-fingerprint", "-sha256", "-in", certificatePath]).output
            // "sha256 Fingerprint=AB:CD:..." -> the SDP form.
            let hex = printed.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            fingerprint = try PeerFingerprint(sdpValue: "sha-256 \(hex)")
        }
    }

    /// The exporter output (RFC 5764 §4.2 layout) rebuilt from our split keys.
    static func exportedLayout(_ keys: DTLSSRTPKeys, role: DTLSRole) -> [UInt8] {
        role == .client
            ? keys.localMasterKey + keys.remoteMasterKey + keys.localMasterSalt + keys.remoteMasterSalt
            : keys.remoteMasterKey + keys.localMasterKey + keys.remoteMasterSalt + keys.localMasterSalt
    }

    /// Shuttles datagrams between `endpoint` and the socket until `done` holds for the events
    /// so far or `seconds` pass. `peer` nil: learn the peer's address from its first datagram.
    /// Drives the handshake for up to `seconds`: generous, because the full suite runs tests
    /// in parallel on two cores and the openssl CLI can take seconds to start under that load
    /// (and the suite's first ~25 s hold every test's task while synchronous fixtures run).
    static func drive(_ endpoint: DTLSEndpoint, socket: UDPTestSocket, peer: sockaddr_in?, initial: [DTLSOutput] = [],
                      seconds: Double = 60, until done: ([DTLSOutput]) -> Bool) async -> [DTLSOutput] {
        var peer = peer
        var events: [DTLSOutput] = []
        func handle(_ outputs: [DTLSOutput]) {
            for output in outputs {
                if case .send(let datagram) = output {
                    if let peer { socket.send(datagram, to: peer) }
                } else {
                    events.append(output)
                }
            }
        }
        handle(initial)
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline && !done(events) {
            if let (datagram, from) = socket.receive(timeoutMilliseconds: 0) {
                if peer == nil { peer = from }
                handle(endpoint.receive(datagram, now: .now()))
                continue
            }
            if let timeout = endpoint.nextTimeout, timeout <= .now() { handle(endpoint.handleTimeout(now: .now())) }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return events
    }

    static func isConnectedOrFailed(_ events: [DTLSOutput]) -> Bool {
        events.contains { if case .connected = $0 { true } else if case .failed = $0 { true } else { false } }
    }

    /// A port that was free a moment ago (the CLI needs a number up front).
    static func freePort() throws -> UInt16 { try UDPTestSocket().port }

    @Test("Our client against openssl s_server", arguments: [
        (false, SRTPProfile.aes128CmHmacSha1_80), (false, .aeadAes128Gcm), (true, .aes128CmHmacSha1_80),
    ])
    func clientAgainstServer(rsaServer: Bool, profile: SRTPProfile) async throws {
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cli = try CLICertificate(in: directory, rsa: rsaServer)
        let port = try Self.freePort()
        let server = try OpenSSLPeerProcess(arguments: [
            "s_server", "-dtls1_2", "-accept", "127.0.0.1:\(port)", "-cert", cli.certificatePath, "-key", cli.keyPath,
            "-use_srtp", profile.openSSLName, "-keymatexport", "EXTRACTOR-dtls_srtp",
            "-keymatexportlen", "\(2 * (profile.keyLength + profile.saltLength))", "-verify", "1", "-mtu", "1200",
        ], outputURL: directory.appendingPathComponent("server.out"))
        defer { server.stop() }
        try #require(await server.waitFor("ACCEPT", seconds: 5), "s_server did not start: \(server.output)")

        let ours = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let endpoint = try DTLSEndpoint(role: .client, certificate: ours, expectedPeerFingerprint: cli.fingerprint,
                                        initialRetransmitTimeout: .milliseconds(200))
        let socket = try UDPTestSocket()
        let events = await Self.drive(endpoint, socket: socket, peer: UDPTestSocket.loopback(port: port),
                                      initial: endpoint.start(now: .now()), until: Self.isConnectedOrFailed)
        let keys = try #require(LoopbackLink.keys(in: events), "events: \(events)\ns_server: \(server.output)")
        #expect(keys.profile == profile)
        #expect(endpoint.cipherSuiteName?.hasPrefix(rsaServer ? "ECDHE-RSA-" : "ECDHE-ECDSA-") == true)

        try #require(await server.waitFor("Keying material: ", seconds: 3), "\(server.output)")
        #expect(server.keyingMaterial == Self.exportedLayout(keys, role: .client))
        #expect(server.output.contains("SRTP Extension negotiated, profile=\(profile.openSSLName)"))
        #expect(server.output.contains("CN = OnAir"), "s_server saw our client certificate")

        for output in endpoint.send(applicationData: Array("hello from OnAir\n".utf8)) {
            if case .send(let datagram) = output { socket.send(datagram, to: UDPTestSocket.loopback(port: port)) }
        }
        #expect(await server.waitFor("hello from OnAir", seconds: 3))
    }

    @Test("Our server against openssl s_client")
    func serverAgainstClient() async throws {
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cli = try CLICertificate(in: directory, rsa: false)
        let ours = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let endpoint = try DTLSEndpoint(role: .server, certificate: ours, expectedPeerFingerprint: cli.fingerprint)
        _ = endpoint.start(now: .now())
        let socket = try UDPTestSocket()
        let client = try OpenSSLPeerProcess(arguments: [
            "s_client", "-dtls1_2", "-connect", "127.0.0.1:\(socket.port)", "-cert", cli.certificatePath, "-key", cli.keyPath,
            "-use_srtp", "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80", "-keymatexport", "EXTRACTOR-dtls_srtp",
            "-keymatexportlen", "56", "-mtu", "1200",
        ], outputURL: directory.appendingPathComponent("client.out"))
        defer { client.stop() }

        let events = await Self.drive(endpoint, socket: socket, peer: nil, until: Self.isConnectedOrFailed)
        let keys = try #require(LoopbackLink.keys(in: events), "events: \(events)\ns_client: \(client.output)")
        #expect(keys.profile == .aeadAes128Gcm)
        try #require(await client.waitFor("Keying material: ", seconds: 3), "\(client.output)")
        #expect(client.keyingMaterial == Self.exportedLayout(keys, role: .server))
    }

    @Test("Our server refuses an s_client that presents no certificate (RFC 5763 §5)")
    func clientWithoutCertificate() async throws {
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cli = try CLICertificate(in: directory, rsa: false)
        let endpoint = try DTLSEndpoint(role: .server, certificate: try DTLSCertificate.generateECDSA(validity: .seconds(3600)),
                                        expectedPeerFingerprint: cli.fingerprint)
        let socket = try UDPTestSocket()
        let client = try OpenSSLPeerProcess(arguments: [
            "s_client", "-dtls1_2", "-connect", "127.0.0.1:\(socket.port)", "-use_srtp", "SRTP_AES128_CM_SHA1_80", "-mtu", "1200",
        ], outputURL: directory.appendingPathComponent("client.out"))
        defer { client.stop() }
        let events = await Self.drive(endpoint, socket: socket, peer: nil, until: Self.isConnectedOrFailed)
        #expect(LoopbackLink.keys(in: events) == nil)
        let reason = try #require(LoopbackLink.failure(in: events), "events: \(events)\ns_client: \(client.output)")
        #expect(reason.contains("certificate"), "\(reason)")
    }

    @Test("AES-CBC cipher: forged short records are dropped, the association survives")
    func cbcSurvivesForgedRecords() async throws {
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cli = try CLICertificate(in: directory, rsa: false)
        let port = try Self.freePort()
        let server = try OpenSSLPeerProcess(arguments: [
            "s_server", "-dtls1_2", "-accept", "127.0.0.1:\(port)", "-cert", cli.certificatePath, "-key", cli.keyPath,
            "-use_srtp", "SRTP_AES128_CM_SHA1_80", "-cipher", "ECDHE-ECDSA-AES128-SHA", "-mtu", "1200",
        ], outputURL: directory.appendingPathComponent("server.out"))
        defer { server.stop() }
        try #require(await server.waitFor("ACCEPT", seconds: 5), "s_server did not start: \(server.output)")

        let endpoint = try DTLSEndpoint(role: .client, certificate: try DTLSCertificate.generateECDSA(validity: .seconds(3600)),
                                        expectedPeerFingerprint: cli.fingerprint)
        let socket = try UDPTestSocket()
        let peer = UDPTestSocket.loopback(port: port)
        let events = await Self.drive(endpoint, socket: socket, peer: peer, initial: endpoint.start(now: .now()),
                                      until: Self.isConnectedOrFailed)
        try #require(LoopbackLink.keys(in: events) != nil, "events: \(events)\ns_server: \(server.output)")
        #expect(endpoint.cipherSuiteName == "ECDHE-ECDSA-AES128-SHA")

        var generator = SplitMix64(seed: 7)
        for length in 0..<120 {
            let body = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let record: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, UInt8(length), 0, UInt8(length)] + body
            #expect(endpoint.receive(record, now: .now()).isEmpty, "length \(length)")
        }
        #expect(endpoint.isConnected)
        for output in endpoint.send(applicationData: Array("still alive\n".utf8)) {
            if case .send(let datagram) = output { socket.send(datagram, to: peer) }
        }
        #expect(await server.waitFor("still alive", seconds: 3))
    }

    @Test("s_server's certificate not matching the SDP fingerprint: we fail with a reason")
    func fingerprintMismatch() async throws {
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cli = try CLICertificate(in: directory, rsa: false)
        let port = try Self.freePort()
        let server = try OpenSSLPeerProcess(arguments: [
            "s_server", "-dtls1_2", "-accept", "127.0.0.1:\(port)", "-cert", cli.certificatePath, "-key", cli.keyPath,
            "-use_srtp", "SRTP_AES128_CM_SHA1_80", "-mtu", "1200",
        ], outputURL: directory.appendingPathComponent("server.out"))
        defer { server.stop() }
        try #require(await server.waitFor("ACCEPT", seconds: 5), "s_server did not start: \(server.output)")

        let someoneElse = try DTLSCertificate.generateECDSA(validity: .seconds(60)).fingerprint
        let endpoint = try DTLSEndpoint(role: .client, certificate: try DTLSCertificate.generateECDSA(validity: .seconds(3600)),
                                        expectedPeerFingerprint: someoneElse)
        let socket = try UDPTestSocket()
        let events = await Self.drive(endpoint, socket: socket, peer: UDPTestSocket.loopback(port: port),
                                      initial: endpoint.start(now: .now()), until: Self.isConnectedOrFailed)
        #expect(LoopbackLink.keys(in: events) == nil)
        let reason = try #require(LoopbackLink.failure(in: events))
        #expect(reason.contains("fingerprint mismatch") && reason.contains(cli.fingerprint.sdpValue))
        #expect(await server.waitFor("bad certificate", seconds: 10), "\(server.output)")
    }
}
