import OnAirCrypto
import OnAirDTLS
import OnAirSTUN
import OnAirWire
import Testing
@testable import OnAirWebRTC

/// A ClientPeerSession (our offerer) against the relay's PeerSession (ICE-lite answerer), both
/// real, joined by an in-memory lossless UDP path and a manual clock.
final class ClientServerLink {
    static let clientAddress = TransportAddress(host: "192.0.2.10", port: 50_000)!
    static let serverAddress = TransportAddress(host: "203.0.113.5", port: 10_000)!

    let client: ClientPeerSession
    let server: PeerSession
    let clientCertificate: DTLSCertificate
    var now = MonoTime.seconds(100)
    /// Everything but `.send`, per side, in order.
    var clientEvents: [PeerEvent] = []
    var serverEvents: [PeerEvent] = []
    /// When false, datagrams from the server are lost (the relay vanished).
    var serverReachable = true
    private var toServer: [[UInt8]] = []
    private var toClient: [[UInt8]] = []

    /// - Parameter serverRole: the relay's DTLS role; ours is the other one (as `a=setup` says).
    init(serverRole: DTLSRole = .server, serverFingerprint: PeerFingerprint? = nil, consentTimeout: Duration = .seconds(30)) throws {
        let clientCertificate = try DTLSCertificate.generateECDSA(commonName: "client")
        let serverCertificate = try DTLSCertificate.generateECDSA(commonName: "relay")
        self.clientCertificate = clientCertificate
        server = try PeerSession(PeerSessionParameters(
            localUfrag: "relayufrag", localPassword: "relaypassword0123456789",
            remoteUfrag: "clientufrag", remotePassword: "clientpassword0123456789",
            certificate: serverCertificate, remoteFingerprint: clientCertificate.fingerprint, dtlsRole: serverRole,
            consentTimeout: .seconds(30)), now: now)
        var checker = ClientPeerSessionParameters.defaultChecker
        checker.consentTimeout = consentTimeout
        client = try ClientPeerSession(ClientPeerSessionParameters(
            localUfrag: "clientufrag", localPassword: "clientpassword0123456789",
            remoteUfrag: "relayufrag", remotePassword: "relaypassword0123456789",
            remoteCandidates: [Self.serverAddress], certificate: clientCertificate,
            remoteFingerprint: serverFingerprint ?? serverCertificate.fingerprint,
            dtlsRole: serverRole == .server ? .client : .server, checker: checker), now: now)
    }

    private func take(_ events: [PeerEvent], fromClient: Bool) {
        for event in events {
            if case .send(let bytes, let address) = event {
                if fromClient {
                    #expect(address == Self.serverAddress)
                    toServer.append(bytes)
                } else {
                    #expect(address == Self.clientAddress)
                    if serverReachable { toClient.append(bytes) }
                }
            } else if fromClient {
                clientEvents.append(event)
            } else {
                serverEvents.append(event)
            }
        }
    }

    /// Polls both sides and shuttles datagrams until the path is quiet.
    func pump() {
        var events: [PeerEvent] = []
        client.poll(now: now, events: &events)
        take(events, fromClient: true)
        events = []
        server.poll(now: now, events: &events)
        take(events, fromClient: false)
        for _ in 0..<1_000 where !toServer.isEmpty || !toClient.isEmpty {
            if !toServer.isEmpty {
                events = []
                server.receive(toServer.removeFirst(), from: Self.clientAddress, now: now, events: &events)
                take(events, fromClient: false)
            }
            if !toClient.isEmpty {
                events = []
                client.receive(toClient.removeFirst(), from: Self.serverAddress, now: now, events: &events)
                take(events, fromClient: true)
            }
        }
    }

    /// Advances the clock in `step`s up to `duration` later, pumping at each step.
    func advance(_ duration: Duration, step: Duration = .milliseconds(100)) {
        let end = now + duration
        while now < end {
            now = now + step
            pump()
        }
    }

    func connect() {
        for _ in 0..<20 where client.state != .connected || server.state != .connected { advance(.milliseconds(100)) }
    }

    func clientSends(_ bytes: [UInt8]) {
        var events: [PeerEvent] = []
        server.receive(bytes, from: Self.clientAddress, now: now, events: &events)
        take(events, fromClient: false)
    }

    func serverSends(_ bytes: [UInt8]) {
        var events: [PeerEvent] = []
        client.receive(bytes, from: Self.serverAddress, now: now, events: &events)
        take(events, fromClient: true)
    }

    var clientPackets: [[UInt8]] { clientEvents.compactMap { if case .rtp(let p) = $0 { p } else { nil } } }
    var serverPackets: [[UInt8]] { serverEvents.compactMap { if case .rtp(let p) = $0 { p } else { nil } } }
    var clientRTCP: [[UInt8]] { clientEvents.compactMap { if case .rtcp(let p) = $0 { p } else { nil } } }
    var serverRTCP: [[UInt8]] { serverEvents.compactMap { if case .rtcp(let p) = $0 { p } else { nil } } }
    func closes(_ events: [PeerEvent]) -> [PeerCloseReason] { events.compactMap { if case .closed(let r) = $0 { r } else { nil } } }
}

/// RTP version 2, PT 96, the given sequence number, timestamp 0x01020304, SSRC 0xCAFEBABE.
func rtpPacket(sequence: UInt16, payload: [UInt8] = Array(0..<100)) -> [UInt8] {
    [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 1, 2, 3, 4, 0xCA, 0xFE, 0xBA, 0xBE] + payload
}

/// RFC 3550 §6.4.2 empty receiver report from SSRC 0x11223344.
let emptyReceiverReport: [UInt8] = [0x80, 201, 0, 1, 0x11, 0x22, 0x33, 0x44]

@Suite("ClientPeerSession against the relay's PeerSession, in memory")
struct ClientPeerSessionTests {
    @Test("ICE nominates the relay's candidate, DTLS completes, both sides install the same SRTP profile",
          arguments: [DTLSRole.server, .client])
    func connects(serverRole: DTLSRole) throws {
        let link = try ClientServerLink(serverRole: serverRole)
        link.connect()
        #expect(link.client.state == .connected)
        #expect(link.server.state == .connected)
        #expect(link.client.remoteAddress == ClientServerLink.serverAddress)
        #expect(link.server.remoteAddress == ClientServerLink.clientAddress)
        #expect(link.client.profile == .aeadAes128Gcm)
        #expect(link.client.profile == link.server.profile)
        #expect(link.client.checker.selectedAddress == ClientServerLink.serverAddress)
        #expect(link.clientEvents.filter { if case .connected = $0 { true } else { false } }.count == 1)
        #expect(link.clientEvents.contains { if case .selected(ClientServerLink.serverAddress) = $0 { true } else { false } })
        #expect(link.client.dtls.role == (serverRole == .server ? .client : .server))
    }

    @Test("SRTP and SRTCP flow both ways; the allocation-free buffer path agrees with the array path")
    func mediaBothWays() throws {
        let link = try ClientServerLink()
        link.connect()
        let overhead = try #require(link.client.rtpOverhead)

        // Client → relay, built in a buffer with spare room for the tag.
        let first = rtpPacket(sequence: 1000)
        var buffer = [UInt8](repeating: 0, count: 1500)
        buffer.replaceSubrange(0..<first.count, with: first)
        let length = try #require(buffer.withUnsafeMutableBytes { link.client.protectRTP(buffer: $0, length: first.count) })
        #expect(length == first.count + overhead)
        #expect(Array(buffer[12..<first.count]) != Array(first[12...]))  // the payload is encrypted
        link.clientSends(Array(buffer[0..<length]))
        link.clientSends(try #require(link.client.protectRTP(rtpPacket(sequence: 1001))))
        #expect(link.serverPackets == [first, rtpPacket(sequence: 1001)])

        // Relay → client, through receive() and through the in-place unprotect.
        var serverBuffer = [UInt8](repeating: 0, count: 1500)
        let reply = rtpPacket(sequence: 7, payload: [9, 8, 7, 6])
        serverBuffer.replaceSubrange(0..<reply.count, with: reply)
        let replyLength = try #require(serverBuffer.withUnsafeMutableBytes { link.server.protectRTP(buffer: $0, length: reply.count) })
        link.serverSends(Array(serverBuffer[0..<replyLength]))
        #expect(link.clientPackets == [reply])
        let second = rtpPacket(sequence: 8, payload: [1, 2, 3])
        serverBuffer.replaceSubrange(0..<second.count, with: second)
        let secondLength = try #require(serverBuffer.withUnsafeMutableBytes { link.server.protectRTP(buffer: $0, length: second.count) })
        let plain = serverBuffer.withUnsafeMutableBytes { link.client.unprotectRTP(buffer: $0, length: secondLength) }
        #expect(plain == second.count)
        #expect(Array(serverBuffer[0..<second.count]) == second)

        // RTCP both ways.
        link.clientSends(try #require(link.client.protectRTCP(emptyReceiverReport)))
        #expect(link.serverRTCP == [emptyReceiverReport])
        link.serverSends(try #require(link.server.protectRTCP(emptyReceiverReport)))
        #expect(link.clientRTCP == [emptyReceiverReport])
    }

    @Test("A replayed or forged SRTP packet is dropped and counted")
    func rejectsReplayAndForgery() throws {
        let link = try ClientServerLink()
        link.connect()
        var buffer = [UInt8](repeating: 0, count: 1500)
        let packet = rtpPacket(sequence: 5)
        buffer.replaceSubrange(0..<packet.count, with: packet)
        let length = try #require(buffer.withUnsafeMutableBytes { link.server.protectRTP(buffer: $0, length: packet.count) })
        let protected = Array(buffer[0..<length])
        link.serverSends(protected)
        link.serverSends(protected)
        var forged = protected
        forged[20] ^= 1
        link.serverSends(forged)
        #expect(link.clientPackets == [packet])
        #expect(link.client.srtpFailures == 2)
    }

    @Test("Consent checks keep both sides alive; an unanswered client closes with consent_expired")
    func consent() throws {
        let link = try ClientServerLink(consentTimeout: .seconds(8))
        link.connect()
        // 20 s of silence but for consent checks: the relay's 30 s consent stays fresh (checks
        // every 1.6-2.4 s count as authenticated traffic) and so does ours.
        link.advance(.seconds(20), step: .milliseconds(250))
        #expect(link.client.state == .connected)
        #expect(link.server.state == .connected)
        let refreshedAt = link.now
        link.serverReachable = false
        link.advance(.seconds(10), step: .milliseconds(250))
        #expect(link.closes(link.clientEvents) == [.consentExpired])
        #expect(link.client.state == .closed)
        #expect(link.now - refreshedAt >= .seconds(6))
        #expect(link.client.nextTimeout == nil)
    }

    @Test("close_notify from either side is seen by the other", arguments: [true, false])
    func closeNotify(clientCloses: Bool) throws {
        let link = try ClientServerLink()
        link.connect()
        var events: [PeerEvent] = []
        if clientCloses {
            link.client.close(now: link.now, events: &events)
            for case .send(let bytes, let address) in events {
                #expect(address == ClientServerLink.serverAddress)
                link.clientSends(bytes)
            }
            #expect(link.closes(events) == [.local])
            #expect(link.closes(link.serverEvents) == [.dtlsClosed])
            #expect(link.client.protectRTP(rtpPacket(sequence: 1)) == nil)
        } else {
            link.server.close(events: &events)
            for case .send(let bytes, _) in events { link.serverSends(bytes) }
            #expect(link.closes(link.clientEvents) == [.dtlsClosed])
            #expect(link.client.state == .closed)
        }
    }

    @Test("A relay certificate that does not match the answer's fingerprint fails DTLS")
    func fingerprintMismatch() throws {
        let stranger = try DTLSCertificate.generateECDSA(commonName: "stranger")
        let link = try ClientServerLink(serverFingerprint: stranger.fingerprint)
        link.connect()
        #expect(link.client.state == .closed)
        let reasons = link.closes(link.clientEvents)
        #expect(reasons.count == 1)
        if case .dtlsFailed = reasons.first {} else { Issue.record("expected dtlsFailed, got \(reasons)") }
    }

    @Test("Without an answer from the relay, the session gives up at the connect timeout")
    func connectTimeout() throws {
        let link = try ClientServerLink()
        link.serverReachable = false
        link.advance(.seconds(14))
        #expect(link.client.state == .connecting)
        link.advance(.seconds(2))
        #expect(link.closes(link.clientEvents) == [.connectTimeout])
    }
}
