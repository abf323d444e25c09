import CLiveOpenSSL
import Glibc
import OnAirCrypto
import OnAirWire

/// One DTLS 1.2 association for DTLS-SRTP (RFC 5763, RFC 5764, RFC 8827), sans-I/O.
///
/// Feed it datagrams (``receive(_:now:)``) and timer expiries (``handleTimeout(now:)``); it
/// answers with ``DTLSOutput``s: datagrams to send and events. OpenSSL runs the handshake; a
/// custom BIO (``DatagramPipe``) keeps datagram boundaries in both directions.
///
/// `@unchecked Sendable`: the `SSL` is not thread-safe, and this class does no locking. It is
/// confined to one event loop (the one that owns the peer session); it is Sendable only so the
/// session can be created elsewhere and handed to that loop.
///
/// Timers: OpenSSL's DTLS timer runs on the wall clock. ``nextTimeout`` converts its remaining
/// time to the caller's clock at each call; ``handleTimeout(now:)`` retransmits only when
/// OpenSSL agrees the timer has expired.
public final class DTLSEndpoint: @unchecked Sendable {
    public let role: DTLSRole
    /// Largest datagram we emit (UDP payload bytes).
    public let mtu: Int
    /// When to call ``handleTimeout(now:)`` next; nil while no retransmission timer runs.
    public private(set) var nextTimeout: MonoTime?
    /// The SRTP keys, once ``DTLSOutput/connected(_:)`` was emitted.
    public private(set) var srtpKeys: DTLSSRTPKeys?

    private enum State { case idle, handshaking, connected, closed, failed }
    private var state: State = .idle
    /// `SSL *`, owned.
    private let ssl: OpaquePointer
    private let pipe = DatagramPipe()
    private let callbacks: SSLCallbackContext
    private let profiles: [SRTPProfile]
    /// Reused by `SSL_read`; allocated on first use.
    private var readBuffer: [UInt8] = []

    /// - Parameters:
    ///   - expectedPeerFingerprint: the `a=fingerprint` of the peer's SDP; the peer's
    ///     certificate must match it. nil accepts any certificate (only for tests).
    ///   - profiles: SRTP profiles to offer (client) or accept (server), preferred first.
    ///   - mtu: the largest datagram to send; WebRTC stacks use about 1200 (RFC 8261 §5).
    ///   - initialRetransmitTimeout: first retransmission timer (RFC 6347 §4.2.4.1: 1 s).
    public init(role: DTLSRole, certificate: DTLSCertificate, expectedPeerFingerprint: PeerFingerprint?,
                profiles: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmHmacSha1_80], mtu: Int = 1200,
                initialRetransmitTimeout: Duration = .seconds(1)) throws {
        guard !profiles.isEmpty else { throw DTLSError.invalidArgument("no SRTP profile to offer") }
        guard (256...65_507).contains(mtu) else { throw DTLSError.invalidArgument("MTU \(mtu) outside 256...65507") }
        self.role = role
        self.mtu = mtu
        self.profiles = profiles
        self.callbacks = SSLCallbackContext(expectedPeerFingerprint: expectedPeerFingerprint,
                                            initialTimer: initialRetransmitTimeout)
        ERR_clear_error()
        let ctx = try DTLSContextFactory.make(certificate: certificate, profiles: profiles)
        defer { SSL_CTX_free(ctx) } // SSL_new holds its own reference.
        guard let ssl = SSL_new(ctx) else { throw OpenSSLError.drain("SSL_new") }
        guard let bio = pipe.makeBIO() else {
            SSL_free(ssl)
            throw OpenSSLError.drain("BIO_new(datagram pipe)")
        }
        SSL_set_bio(ssl, bio, bio) // one BIO for both directions; SSL takes the reference.
        self.ssl = ssl
        callbacks.attach(to: ssl)
        guard clive_DTLS_set_link_mtu(ssl, mtu) == 1 else {
            throw OpenSSLError.drain("DTLS_set_link_mtu(\(mtu))") // deinit frees ssl
        }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
    }

    deinit {
        SSL_free(ssl) // frees the BIO, which releases the pipe.
    }

    /// True once the handshake completed and keys were exported.
    public var isConnected: Bool { state == .connected }

    /// The negotiated cipher suite in OpenSSL's naming (e.g. "ECDHE-ECDSA-AES128-GCM-SHA256").
    public var cipherSuiteName: String? {
        guard let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else { return nil }
        return String(cString: name)
    }

    /// Begins the handshake: a client returns its ClientHello flight; a server returns nothing
    /// and waits for one.
    public func start(now: MonoTime) -> [DTLSOutput] {
        guard state == .idle else { return [] }
        state = .handshaking
        return role == .client ? advance(now: now) : []
    }

    /// Handles one received DTLS datagram (RFC 7983 demultiplexing already chose DTLS).
    /// Malformed records are dropped silently (RFC 6347 §4.1.2.7), by ``DTLSRecordFilter`` and
    /// then by OpenSSL's record layer; hostile input never traps.
    public func receive(_ datagram: [UInt8], now: MonoTime) -> [DTLSOutput] {
        switch state {
        case .closed, .failed: return []
        case .idle: state = .handshaking
        case .handshaking, .connected: break
        }
        guard let records = DTLSRecordFilter.sanitize(datagram) else { return [] }
        pipe.push(records)
        return advance(now: now)
    }

    /// Retransmits the last flight if OpenSSL's timer expired (RFC 6347 §4.2.4). Fails the
    /// association once OpenSSL gives up after repeated timeouts.
    public func handleTimeout(now: MonoTime) -> [DTLSOutput] {
        guard state == .handshaking || state == .connected else { return [] }
        ERR_clear_error()
        var events: [DTLSOutput] = []
        if clive_DTLSv1_handle_timeout(ssl) < 0 {
            events.append(fail(defaultReason: "DTLS retransmission limit reached"))
        }
        return collect(events, now: now)
    }

    /// Sends close_notify (RFC 5246 §7.2.1) and ends the association.
    public func close(now: MonoTime = .zero) -> [DTLSOutput] {
        guard state == .handshaking || state == .connected else {
            state = .closed
            return []
        }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        state = .closed
        return collect([], now: now)
    }

    /// Encrypts application data into records (the SCTP channel would go here; WHIP/WHEP
    /// media does not need it). Returns nothing before the handshake completes.
    public func send(applicationData: [UInt8], now: MonoTime = .zero) -> [DTLSOutput] {
        guard state == .connected, !applicationData.isEmpty else { return [] }
        ERR_clear_error()
        let written = applicationData.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        var events: [DTLSOutput] = []
        if written <= 0 { events.append(fail(defaultReason: "SSL_write failed")) }
        return collect(events, now: now)
    }

    // MARK: - Driving OpenSSL

    /// Runs the handshake and, once connected, reads records until OpenSSL wants more input.
    private func advance(now: MonoTime) -> [DTLSOutput] {
        var events: [DTLSOutput] = []
        if state == .handshaking {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                events.append(completeHandshake())
            } else if !isRetry(SSL_get_error(ssl, result)) {
                events.append(fail(defaultReason: "DTLS handshake failed"))
            }
        }
        if state == .connected { readRecords(into: &events) }
        return collect(events, now: now)
    }

    /// Reads decrypted records: application data, or the peer's close_notify.
    private func readRecords(into events: inout [DTLSOutput]) {
        if readBuffer.isEmpty { readBuffer = [UInt8](repeating: 0, count: 16_384) } // largest plaintext record
        while state == .connected {
            ERR_clear_error()
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                events.append(.applicationData(Array(readBuffer.prefix(Int(count)))))
                continue
            }
            let error = SSL_get_error(ssl, count)
            if isRetry(error) { return }
            if error == SSL_ERROR_ZERO_RETURN {
                // RFC 5246 §7.2.1: answer close_notify with our own.
                _ = SSL_shutdown(ssl)
                state = .closed
                events.append(.closed)
            } else {
                events.append(fail(defaultReason: "DTLS read failed (SSL error \(error))"))
            }
        }
    }

    /// Checks what the handshake agreed on and exports the SRTP keys (RFC 5764 §4.2).
    private func completeHandshake() -> DTLSOutput {
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            return fail(reason: "peer presented no certificate")
        }
        let acceptable = callbacks.accept(peerCertificate: peer) // the verify callback ran too; belt and braces
        X509_free(peer)
        guard acceptable else { return fail(reason: callbacks.rejection ?? "peer certificate rejected") }

        guard let selected = SSL_get_selected_srtp_profile(ssl) else {
            return failAfterHandshake("peer negotiated no SRTP profile (RFC 5764 use_srtp missing)")
        }
        let id = UInt16(truncatingIfNeeded: selected.pointee.id)
        guard let profile = profiles.first(where: { $0.identifier == id }) else {
            return failAfterHandshake("peer selected SRTP profile 0x\(String(id, radix: 16)), which we did not offer")
        }
        var material = [UInt8](repeating: 0, count: DTLSSRTPKeys.exportLength(for: profile))
        let label = DTLSSRTPKeys.exporterLabel
        let ok = material.withUnsafeMutableBufferPointer { out in
            SSL_export_keying_material(ssl, out.baseAddress, out.count, label, label.utf8.count, nil, 0, 0)
        }
        guard ok == 1 else { return failAfterHandshake("SSL_export_keying_material: \(OpenSSLError.drain("export").description)") }
        let keys = DTLSSRTPKeys(profile: profile, exported: material, role: role)
        srtpKeys = keys
        state = .connected
        return .connected(keys)
    }

    /// A handshake that completed but is unusable: tell the peer with close_notify, then fail.
    private func failAfterHandshake(_ reason: String) -> DTLSOutput {
        _ = SSL_shutdown(ssl)
        return fail(reason: reason)
    }

    private func fail(reason: String) -> DTLSOutput {
        state = .failed
        return .failed(reason)
    }

    /// Fails with the most specific reason we have: our own certificate verdict, else
    /// OpenSSL's error queue (which names alerts, e.g. "sslv3 alert bad certificate").
    private func fail(defaultReason: String) -> DTLSOutput {
        if let rejection = callbacks.rejection { return fail(reason: rejection) }
        let queue = OpenSSLError.drain(defaultReason).queue
        return fail(reason: queue.isEmpty ? defaultReason : "\(defaultReason): \(queue.joined(separator: "; "))")
    }

    private func isRetry(_ error: Int32) -> Bool {
        error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE
    }

    /// Datagrams first (they may carry our alert or final flight), then events; refreshes
    /// ``nextTimeout``.
    private func collect(_ events: [DTLSOutput], now: MonoTime) -> [DTLSOutput] {
        pipe.discardInbound()
        var outputs = pipe.takeDatagrams(mtu: mtu).map(DTLSOutput.send)
        outputs += events
        updateTimeout(now: now)
        return outputs
    }

    private func updateTimeout(now: MonoTime) {
        var remaining = timeval()
        guard state == .handshaking || state == .connected, clive_DTLSv1_get_timeout(ssl, &remaining) == 1 else {
            nextTimeout = nil
            return
        }
        nextTimeout = now + .seconds(Int64(remaining.tv_sec)) + .microseconds(Int64(remaining.tv_usec))
    }
}
