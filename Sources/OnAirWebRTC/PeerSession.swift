import OnAirCrypto
import OnAirDTLS
import OnAirRTP
import OnAirSTUN
import OnAirWire

/// One WebRTC transport (BUNDLE + rtcp-mux: one 5-tuple) as a sans-I/O state machine:
/// datagrams and timer ticks in, ``PeerEvent``s out. It joins ICE-lite (RFC 8445 §2.5),
/// DTLS-SRTP (RFC 5764) and SRTP/SRTCP (RFC 3711) and demultiplexes them by RFC 7983.
///
/// Confined to one event loop: not thread-safe, by design (no locks on the media path).
public final class PeerSession: @unchecked Sendable {
    // @unchecked: owned by one event loop; DTLS and SRTP contexts are C state used there only.
    public enum State: String, Sendable {
        /// Waiting for ICE nomination / the DTLS handshake.
        case connecting
        /// DTLS done, SRTP keys installed.
        case connected
        case closed
    }

    public private(set) var state: State = .connecting
    public private(set) var ice: ICELiteAgent
    public let dtls: DTLSEndpoint
    private var inbound: SRTPContext?
    private var outbound: SRTPContext?
    private let createdAt: MonoTime
    private let connectTimeout: Duration
    private var dtlsStarted = false
    public private(set) var srtpFailures: UInt64 = 0
    public private(set) var profile: SRTPProfile?
    /// Addresses that passed an authenticated connectivity check (RFC 8445 §7.3.1.4 valid
    /// pairs). Peers may start DTLS on a valid pair before nominating it, so we accept DTLS
    /// and SRTP from these, and answer on the latest until a nomination picks one.
    private var validatedAddresses: [TransportAddress] = []

    public init(_ parameters: PeerSessionParameters, now: MonoTime) throws {
        ice = ICELiteAgent(localUfrag: parameters.localUfrag, localPassword: parameters.localPassword,
                           remoteUfrag: parameters.remoteUfrag, remotePassword: parameters.remotePassword,
                           consentTimeout: parameters.consentTimeout)
        dtls = try DTLSEndpoint(role: parameters.dtlsRole, certificate: parameters.certificate,
                                expectedPeerFingerprint: parameters.remoteFingerprint)
        createdAt = now
        connectTimeout = parameters.connectTimeout
    }

    /// Where everything we send goes: the nominated pair, else the latest valid one.
    public var remoteAddress: TransportAddress? { ice.selectedAddress ?? validatedAddresses.last }

    private func isValidated(_ source: TransportAddress) -> Bool {
        source == ice.selectedAddress || validatedAddresses.contains(source)
    }

    /// True when media may be protected and sent.
    public var canSendMedia: Bool { state == .connected && outbound != nil }

    /// Handles one datagram from `source`, appending what to do to `events`.
    public func receive(_ datagram: [UInt8], from source: TransportAddress, now: MonoTime, events: inout [PeerEvent]) {
        guard state != .closed else { return }
        let kind = DatagramKind.classify(datagram)
        switch kind {
        case .stun:
            let result = ice.receive(datagram, from: source, now: now)
            if case .respond = result, !validatedAddresses.contains(source) {
                if validatedAddresses.count == 4 { validatedAddresses.removeFirst() }
                validatedAddresses.append(source)
                events.append(.validated(source))
                if ice.selectedAddress == nil && result.nominatedAddress == nil { events.append(.selected(source)) }
            }
            if let nominated = result.nominatedAddress { events.append(.selected(nominated)) }
            if let reply = result.datagram { events.append(.send(reply.bytes, to: reply.address)) }
            if remoteAddress != nil { startDTLSIfClient(now: now, events: &events) }
        case .dtls:
            // Only from a validated pair: DTLS runs over ICE (RFC 8842 §4), never around it.
            guard isValidated(source) else { return }
            ice.noteAuthenticatedTraffic(from: source, now: now)
            apply(dtls.receive(datagram, now: now), now: now, events: &events)
        case .rtp, .rtcp:
            var packet = datagram
            let length = packet.withUnsafeMutableBytes { buffer in
                kind == .rtp ? unprotectRTP(buffer, length: datagram.count, from: source, now: now)?.length
                    : unprotectRTCP(buffer, length: datagram.count, from: source, now: now)
            }
            guard let length else { return }
            packet.removeLast(packet.count - length)
            events.append(kind == .rtp ? .rtp(packet) : .rtcp(packet))
        case .unknown:
            return
        }
    }

    /// Verifies and decrypts an SRTP datagram from `source` in place, in `buffer[0..<length]`:
    /// the media path's way in, allocation-free. Its header (in the clear, RFC 3711 §3.1) is
    /// read once, here, for SRTP and for everything after it. Returns the plain packet's
    /// length and header view (padding removed), or nil when it is not from a validated pair
    /// (RFC 8842 §4), is malformed, or fails authentication or the replay check (RFC 3711
    /// §3.3), counted in ``srtpFailures``; the bytes are then unspecified.
    @inline(__always)
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, from source: TransportAddress,
                             now: MonoTime) -> (length: Int, view: RTPPacketView)? {
        guard state != .closed, let inbound, isValidated(source) else { return nil }
        let tag = inbound.profile.rtpOverhead
        guard length >= 12 + tag,
              var view = RTPPacketView(header: UnsafeRawBufferPointer(rebasing: buffer[..<(length - tag)])) else {
            srtpFailures += 1
            return nil
        }
        let plain: Int
        do {
            plain = try inbound.unprotectRTP(buffer: buffer, length: length, headerLength: view.headerLength,
                                             sequence: view.sequence, ssrc: view.ssrc)
        } catch {
            srtpFailures += 1
            return nil
        }
        ice.noteAuthenticatedTraffic(from: source, now: now)
        let packet = UnsafeRawBufferPointer(rebasing: buffer[..<plain])
        guard plain == view.payloadRange.upperBound, view.removePadding(in: packet) else { return nil }
        return (plain, view)
    }

    /// Verifies and decrypts an SRTCP datagram from `source` in place, in
    /// `buffer[0..<length]`; returns the RTCP packet's length, or nil (as for RTP).
    @inline(__always)
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, from source: TransportAddress,
                              now: MonoTime) -> Int? {
        guard state != .closed, let inbound, isValidated(source) else { return nil }
        let plain: Int
        do {
            plain = try inbound.unprotectRTCP(buffer: buffer, length: length)
        } catch {
            srtpFailures += 1
            return nil
        }
        ice.noteAuthenticatedTraffic(from: source, now: now)
        return plain
    }

    /// Drives timers: DTLS retransmission, consent expiry (RFC 7675), connect timeout.
    public func poll(now: MonoTime, events: inout [PeerEvent]) {
        guard state != .closed else { return }
        if state == .connecting, now - createdAt >= connectTimeout {
            close(reason: .connectTimeout, events: &events)
            return
        }
        if ice.consentExpired(now: now) {
            state = .closed
            events.append(.closed(.consentExpired))
            return
        }
        if let deadline = dtls.nextTimeout, deadline <= now {
            apply(dtls.handleTimeout(now: now), now: now, events: &events)
        }
    }

    /// Ends the session from our side: close_notify to the peer (if we can reach it).
    public func close(events: inout [PeerEvent]) {
        close(reason: .local, events: &events)
    }

    private func close(reason: PeerCloseReason, events: inout [PeerEvent]) {
        guard state != .closed else { return }
        let outputs = dtls.close()
        state = .closed
        if let address = remoteAddress {
            for case .send(let bytes) in outputs { events.append(.send(bytes, to: address)) }
        }
        events.append(.closed(reason))
    }

    /// ICE restart (RFC 8445 §9): new credentials; media continues on the current pair.
    public func restartICE(localUfrag: String, localPassword: String, remoteUfrag: String, remotePassword: String) {
        ice.restart(localUfrag: localUfrag, localPassword: localPassword, remoteUfrag: remoteUfrag, remotePassword: remotePassword)
    }

    /// Protects an RTP packet built in `buffer[0..<length]` in place; returns the protected
    /// length or nil when it could not be protected. Allocation-free.
    @inline(__always)
    public func protectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let outbound else { return nil }
        return try? outbound.protectRTP(buffer: buffer, length: length)
    }

    /// ``protectRTP(buffer:length:)`` of a packet whose header the caller has just written
    /// (`headerLength` octets, `sequence`, `ssrc`): the header is not read again.
    @inline(__always)
    public func protectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int, headerLength: Int, sequence: UInt16,
                           ssrc: UInt32) -> Int? {
        guard let outbound else { return nil }
        return try? outbound.protectRTP(buffer: buffer, length: length, headerLength: headerLength, sequence: sequence, ssrc: ssrc)
    }

    /// Protects an RTCP compound packet built in `buffer[0..<length]` in place (room for the
    /// SRTCP index and tag after it); returns the protected length. Allocation-free.
    public func protectRTCP(buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let outbound else { return nil }
        return try? outbound.protectRTCP(buffer: buffer, length: length)
    }

    /// Protects an RTCP compound packet for sending.
    public func protectRTCP(_ packet: [UInt8]) -> [UInt8]? {
        guard let outbound else { return nil }
        var bytes = packet
        do {
            try outbound.protectRTCP(&bytes)
            return bytes
        } catch {
            return nil
        }
    }

    private func startDTLSIfClient(now: MonoTime, events: inout [PeerEvent]) {
        guard !dtlsStarted, dtls.role == .client else { return }
        dtlsStarted = true
        apply(dtls.start(now: now), now: now, events: &events)
    }

    private func apply(_ outputs: [DTLSOutput], now: MonoTime, events: inout [PeerEvent]) {
        for output in outputs {
            switch output {
            case .send(let bytes):
                if let address = remoteAddress { events.append(.send(bytes, to: address)) }
            case .connected(let keys):
                do {
                    outbound = try SRTPContext(profile: keys.profile, masterKey: keys.localMasterKey, masterSalt: keys.localMasterSalt)
                    inbound = try SRTPContext(profile: keys.profile, masterKey: keys.remoteMasterKey, masterSalt: keys.remoteMasterSalt)
                    profile = keys.profile
                    state = .connected
                    events.append(.connected)
                } catch {
                    close(reason: .dtlsFailed("SRTP setup: \(error)"), events: &events)
                }
            case .closed:
                state = .closed
                events.append(.closed(.dtlsClosed))
            case .failed(let reason):
                state = .closed
                events.append(.closed(.dtlsFailed(reason)))
            case .applicationData:
                break  // no data channels on WHIP/WHEP media transports
            }
        }
    }
}

extension PeerSession {
    /// For a first connectivity check on the shared port: the local ufrag in its USERNAME
    /// ("ours:theirs", RFC 8445 §7.2.2), which names the session it belongs to.
    public static func localUfrag(ofCheck datagram: [UInt8]) -> String? {
        ICELiteAgent.usernameFragments(of: datagram)?.local
    }
}
