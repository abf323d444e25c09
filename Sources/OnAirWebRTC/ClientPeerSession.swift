import OnAirCrypto
import OnAirDTLS
import OnAirSTUN
import OnAirWire

/// The offerer's side of one WebRTC transport (BUNDLE + rtcp-mux: one 5-tuple), as a sans-I/O
/// state machine: the counterpart of ``PeerSession`` for our own clients (the WHIP publisher,
/// WHEP load viewers). Datagrams and timer ticks in, ``PeerEvent``s out.
///
/// - ICE: the full, controlling agent (RFC 8445 §6.1.1: the offerer controls when the answerer
///   is full, and always against ICE-lite). ``ICEControllingChecker`` checks the answer's
///   candidates and nominates the first that works; checks from a full-ICE answerer are
///   answered (RFC 8445 §7.3). Consent checks follow (RFC 7675).
/// - DTLS-SRTP (RFC 5764): client when the answer said `a=setup:passive` (started as soon as a
///   pair is selected), server for `a=setup:active`. Keys install SRTP contexts both ways.
/// - Demultiplexing by first byte (RFC 7983), like ``PeerSession``.
///
/// Driving it: call ``poll(now:events:)`` right after creation (it sends the first check), at
/// ``nextTimeout``, and whenever convenient; ``receive(_:from:now:events:)`` for every datagram.
///
/// Confined to one thread or event loop: not thread-safe, by design (no locks on the media path).
public final class ClientPeerSession: @unchecked Sendable {
    // @unchecked: the DTLS endpoint and SRTP contexts are C state mutated without locks; the
    // owner uses the session from one thread at a time (it may be created elsewhere).
    public enum State: String, Sendable {
        /// Checking candidates, or the DTLS handshake is running.
        case connecting
        /// DTLS done, SRTP keys installed: media may flow.
        case connected
        case closed
    }

    public private(set) var state: State = .connecting
    public private(set) var checker: ICEControllingChecker
    public let dtls: DTLSEndpoint
    public private(set) var profile: SRTPProfile?
    /// SRTP/SRTCP packets that failed authentication or replay checks (dropped).
    public internal(set) var srtpFailures: UInt64 = 0
    /// Of ``srtpFailures``, the packets refused as replays (RFC 3711 §3.3.2): an index seen
    /// already, or older than the replay window; the rest did not authenticate.
    public internal(set) var srtpReplays: UInt64 = 0
    /// Authenticated checks from the peer that we answered (a full-ICE answerer sends them).
    public private(set) var checksAnswered: UInt64 = 0

    var inbound: SRTPContext?
    var outbound: SRTPContext?
    private let responder: ClientPeerSessionCheckResponder
    private let createdAt: MonoTime
    private let connectTimeout: Duration
    private var dtlsStarted = false
    /// Addresses with a successful check either way (RFC 8445 §7.2.5.3.2 / §7.3.1.4 valid
    /// pairs): DTLS and SRTP are accepted from these only (RFC 8842 §4).
    private var validatedAddresses: [TransportAddress] = []

    public init(_ parameters: ClientPeerSessionParameters, now: MonoTime) throws {
        checker = ICEControllingChecker(localUfrag: parameters.localUfrag, localPassword: parameters.localPassword,
                                        remoteUfrag: parameters.remoteUfrag, remotePassword: parameters.remotePassword,
                                        remoteCandidates: parameters.remoteCandidates, configuration: parameters.checker)
        dtls = try DTLSEndpoint(role: parameters.dtlsRole, certificate: parameters.certificate,
                                expectedPeerFingerprint: parameters.remoteFingerprint, profiles: parameters.profiles)
        responder = ClientPeerSessionCheckResponder(localUfrag: parameters.localUfrag, localPassword: parameters.localPassword,
                                                    remoteUfrag: parameters.remoteUfrag)
        createdAt = now
        connectTimeout = parameters.connectTimeout
    }

    /// Where we send: the nominated pair, else the latest valid one.
    public var remoteAddress: TransportAddress? { checker.selectedAddress ?? validatedAddresses.last }

    /// True when media may be protected and sent.
    public var canSendMedia: Bool { state == .connected && outbound != nil }

    /// When ``poll(now:events:)`` next has work (check retransmission, consent check, DTLS
    /// retransmission, connect deadline); nil once closed.
    public var nextTimeout: MonoTime? {
        guard state != .closed else { return nil }
        var times: [MonoTime] = []
        if let time = checker.nextTimeout { times.append(time) }
        if let time = dtls.nextTimeout { times.append(time) }
        if state == .connecting { times.append(createdAt + connectTimeout) }
        return times.min()
    }

    private func isValidated(_ source: TransportAddress) -> Bool {
        source == checker.selectedAddress || validatedAddresses.contains(source)
    }

    private func validate(_ address: TransportAddress) {
        guard !validatedAddresses.contains(address) else { return }
        if validatedAddresses.count == 4 { validatedAddresses.removeFirst() }
        validatedAddresses.append(address)
    }

    /// Handles one datagram from `source`, appending what to do to `events`.
    public func receive(_ datagram: [UInt8], from source: TransportAddress, now: MonoTime, events: inout [PeerEvent]) {
        guard state != .closed else { return }
        switch DatagramKind.classify(datagram) {
        case .stun:
            receiveSTUN(datagram, from: source, now: now, events: &events)
        case .dtls:
            guard isValidated(source) else { return }
            apply(dtls.receive(datagram, now: now), now: now, events: &events)
        case .rtp:
            guard let inbound, isValidated(source) else { return }
            var packet = datagram
            do {
                try inbound.unprotectRTP(&packet)
                events.append(.rtp(packet))
            } catch {
                srtpFailures += 1
            }
        case .rtcp:
            guard let inbound, isValidated(source) else { return }
            var packet = datagram
            do {
                try inbound.unprotectRTCP(&packet)
                events.append(.rtcp(packet))
            } catch {
                srtpFailures += 1
            }
        case .unknown:
            return
        }
    }

    private func receiveSTUN(_ datagram: [UInt8], from source: TransportAddress, now: MonoTime, events: inout [PeerEvent]) {
        if let result = checker.receive(datagram, from: source, now: now) {
            switch result {
            case .checkSucceeded(let address):
                validate(address)
            case .selected(let address):
                validate(address)
                events.append(.selected(address))
                startDTLSIfClient(now: now, events: &events)
            case .consentRefreshed, .checkFailed:
                break
            }
        } else {
            switch responder.answer(datagram, from: source) {
            case .accepted(let reply):
                checksAnswered += 1
                // RFC 8445 §7.3.1.3: a check from an address we did not know is a
                // peer-reflexive candidate, worth checking ourselves.
                checker.addRemoteCandidate(source)
                events.append(.send(reply.bytes, to: reply.address))
            case .rejected(let reply, _):
                events.append(.send(reply.bytes, to: reply.address))
            case .ignored:
                break
            }
        }
        // A success may have queued the nominating check: send it now rather than at the next tick.
        for datagram in checker.poll(now: now) { events.append(.send(datagram.bytes, to: datagram.address)) }
    }

    /// Drives timers: check pacing and retransmission, consent checks and expiry (RFC 7675),
    /// DTLS retransmission (RFC 6347 §4.2.4), the connect deadline.
    public func poll(now: MonoTime, events: inout [PeerEvent]) {
        guard state != .closed else { return }
        if state == .connecting, now - createdAt >= connectTimeout {
            close(reason: .connectTimeout, now: now, events: &events)
            return
        }
        if checker.consentExpired(now: now) {
            // RFC 7675 §5.1: stop sending at once; the peer stopped answering, so no close_notify.
            state = .closed
            events.append(.closed(.consentExpired))
            return
        }
        for datagram in checker.poll(now: now) { events.append(.send(datagram.bytes, to: datagram.address)) }
        if let deadline = dtls.nextTimeout, deadline <= now {
            apply(dtls.handleTimeout(now: now), now: now, events: &events)
        }
    }

    /// Ends the session from our side: close_notify to the peer (RFC 5246 §7.2.1) when a pair
    /// is known, then `.closed(.local)`.
    public func close(now: MonoTime, events: inout [PeerEvent]) {
        close(reason: .local, now: now, events: &events)
    }

    private func close(reason: PeerCloseReason, now: MonoTime, events: inout [PeerEvent]) {
        guard state != .closed else { return }
        let outputs = dtls.close(now: now)
        state = .closed
        if let address = remoteAddress {
            for case .send(let bytes) in outputs { events.append(.send(bytes, to: address)) }
        }
        events.append(.closed(reason))
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
                    close(reason: .dtlsFailed("SRTP setup: \(error)"), now: now, events: &events)
                }
            case .closed:
                state = .closed
                events.append(.closed(.dtlsClosed))
            case .failed(let reason):
                state = .closed
                events.append(.closed(.dtlsFailed(reason)))
            case .applicationData:
                break  // no data channel on WHIP/WHEP transports
            }
        }
    }
}
