import OnAirCrypto
import OnAirWire

/// The controlling, full-ICE side toward an ICE-lite peer (our broadcaster publishing to the
/// relay, and in-process tests). Sans-I/O: call ``poll(now:)`` at ``nextTimeout`` and after
/// every ``receive(_:from:now:)``, send what it returns.
///
/// Deliberately simple: one component, the remote candidates as given (no local candidate
/// gathering, the socket is whatever the caller sends from), regular nomination (RFC 8445
/// §8.1.1): plain checks to each candidate, paced by Ta; the first that succeeds is checked again
/// with USE-CANDIDATE, and when that succeeds the pair is selected and other checks stop. Then a
/// consent check every 4-6 s (RFC 7675 §5.1), not retransmitted since the next one follows soon.
public struct ICEControllingChecker: Sendable, CustomStringConvertible {
    public enum State: Hashable, Sendable {
        /// Sending plain checks.
        case checking
        /// A check succeeded; the nominating check to this address is outstanding.
        case nominating(TransportAddress)
        /// Selected; consent checks are running.
        case connected(TransportAddress)
        /// Every candidate failed (adding a candidate resumes checking).
        case failed
    }

    private enum CandidateStatus: Sendable { case waiting, inProgress, succeeded, failed }

    public let localUfrag: String
    public let localPassword: String
    public let remoteUfrag: String
    public let remotePassword: String
    /// RFC 8445 §7.1.3: sent in ICE-CONTROLLING; a lite peer never compares it, but it is mandatory.
    public let tieBreaker: UInt64
    public let configuration: ICECheckerConfiguration
    public private(set) var state: State = .checking

    private var candidates: [(address: TransportAddress, status: CandidateStatus)] = []
    private var transactions: [ICECheckTransaction] = []
    private var nextCheckStart: MonoTime = .zero
    private var nextConsentCheck: MonoTime?
    private var lastConsent: MonoTime?
    /// Requests are signed with the peer's password (RFC 8445 §7.2.2), so are its responses.
    private let remoteKey: [UInt8]

    public init(localUfrag: String, localPassword: String, remoteUfrag: String, remotePassword: String,
                remoteCandidates: [TransportAddress] = [], tieBreaker: UInt64 = SecureRandom.uint64(),
                configuration: ICECheckerConfiguration = ICECheckerConfiguration()) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.tieBreaker = tieBreaker
        self.configuration = configuration
        self.remoteKey = Array(remotePassword.utf8)
        for address in remoteCandidates { addRemoteCandidate(address) }
    }

    /// The selected address, once the nominating check succeeded.
    public var selectedAddress: TransportAddress? {
        if case .connected(let address) = state { return address }
        return nil
    }

    /// Adds a remote candidate (e.g. trickled); duplicates are ignored.
    public mutating func addRemoteCandidate(_ address: TransportAddress) {
        guard !candidates.contains(where: { $0.address == address }) else { return }
        candidates.append((address, .waiting))
        if state == .failed { state = .checking }
    }

    /// When ``poll(now:)`` next has something to do; nil when idle.
    public var nextTimeout: MonoTime? {
        var times = transactions.map(\.deadline)
        if state == .checking, candidates.contains(where: { $0.status == .waiting }) { times.append(nextCheckStart) }
        if let nextConsentCheck { times.append(nextConsentCheck) }
        return times.min()
    }

    /// Starts due checks, runs retransmission timers and returns the datagrams to send.
    public mutating func poll(now: MonoTime) -> [STUNDatagram] {
        if state == .checking, now >= nextCheckStart,
           let index = candidates.firstIndex(where: { $0.status == .waiting }) {
            candidates[index].status = .inProgress
            start(.probe, to: candidates[index].address, now: now)
            nextCheckStart = now + configuration.pacing
        }
        if case .connected(let address) = state, let due = nextConsentCheck, now >= due {
            start(.consent, to: address, now: now)
            nextConsentCheck = now + Self.jittered(configuration.consentInterval)
        }
        var out: [STUNDatagram] = []
        var timedOut: [ICECheckTransaction] = []
        for index in transactions.indices {
            switch transactions[index].step(now: now) {
            case .send: out.append(STUNDatagram(bytes: transactions[index].bytes, address: transactions[index].destination))
            case .timedOut: timedOut.append(transactions[index])
            case nil: break
            }
        }
        for transaction in timedOut {
            transactions.removeAll { $0.transactionID == transaction.transactionID }
            if transaction.purpose != .consent { candidateFailed(transaction.destination, now: now) }
        }
        return out
    }

    /// Handles a datagram from the peer. Returns nil for anything that is not an authentic
    /// response to one of our outstanding requests (those are dropped as if never received,
    /// RFC 8489 §9.1.4, so retransmissions continue).
    public mutating func receive(_ bytes: [UInt8], from source: TransportAddress, now: MonoTime) -> ICECheckerEvent? {
        guard STUNMessage.isSTUN(bytes), let response = try? STUNMessage.parse(bytes),
              response.type.messageClass == .successResponse || response.type.messageClass == .errorResponse,
              let index = transactions.firstIndex(where: { $0.transactionID == response.transactionID })
        else { return nil }
        if response.fingerprint != nil, !STUNMessage.verifyFingerprint(bytes) { return nil }
        // A success must be signed. An error may be unsigned (a 401 cannot be signed by a peer
        // that did not recognise us), but a signature that does not verify marks a forgery.
        let isSuccess = response.type.messageClass == .successResponse
        let isSigned = response.messageIntegrity != nil
        if isSigned || isSuccess, !STUNMessage.verifyMessageIntegrity(bytes, key: remoteKey) { return nil }
        let transaction = transactions.remove(at: index)
        // RFC 8445 §7.2.5.2.1: the response must come from where the request went.
        guard source == transaction.destination else {
            if transaction.purpose != .consent { candidateFailed(transaction.destination, now: now) }
            return .checkFailed(transaction.destination, nil)
        }
        guard response.type.messageClass == .successResponse else {
            if transaction.purpose != .consent { candidateFailed(transaction.destination, now: now) }
            return .checkFailed(transaction.destination, response.errorCode ?? .badRequest)
        }
        return succeeded(transaction, now: now)
    }

    /// RFC 7675 §5.1: connected, yet no consent check was answered for ``ICECheckerConfiguration/consentTimeout``.
    public func consentExpired(now: MonoTime) -> Bool {
        guard case .connected = state, let lastConsent else { return false }
        return now - lastConsent >= configuration.consentTimeout
    }

    /// Leaves the passwords out: this ends up in logs and test failure messages.
    public var description: String {
        "ICEControllingChecker(\(remoteUfrag):\(localUfrag), \(state), candidates: \(candidates.map(\.address)))"
    }

    private mutating func succeeded(_ transaction: ICECheckTransaction, now: MonoTime) -> ICECheckerEvent? {
        let address = transaction.destination
        switch transaction.purpose {
        case .probe:
            setStatus(.succeeded, for: address)
            if state == .checking {
                state = .nominating(address)
                start(.nominate, to: address, now: now)
            }
            return .checkSucceeded(address)
        case .nominate:
            state = .connected(address)
            lastConsent = now
            nextConsentCheck = now + Self.jittered(configuration.consentInterval)
            transactions.removeAll { $0.purpose != .consent }
            return .selected(address)
        case .consent:
            guard state == .connected(address) else { return nil }
            lastConsent = now
            return .consentRefreshed(address)
        }
    }

    /// A check or nomination to `address` failed; nominate another succeeded candidate if any,
    /// else keep checking, else give up.
    private mutating func candidateFailed(_ address: TransportAddress, now: MonoTime) {
        setStatus(.failed, for: address)
        if state == .nominating(address) {
            state = .checking
            if let next = candidates.first(where: { $0.status == .succeeded })?.address {
                state = .nominating(next)
                start(.nominate, to: next, now: now)
            }
        }
        if state == .checking, !candidates.contains(where: { $0.status == .waiting || $0.status == .inProgress }) {
            state = .failed
        }
    }

    private mutating func setStatus(_ status: CandidateStatus, for address: TransportAddress) {
        if let index = candidates.firstIndex(where: { $0.address == address }) { candidates[index].status = status }
    }

    /// Builds a Binding request (RFC 8445 §7.2.2): USERNAME "remote:local", PRIORITY,
    /// ICE-CONTROLLING, USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with the remote password,
    /// FINGERPRINT. Transaction IDs are cryptographically random (RFC 8489 §6: they are what
    /// keeps off-path attackers from forging responses).
    private mutating func start(_ purpose: ICECheckTransaction.Purpose, to address: TransportAddress, now: MonoTime) {
        let transactionID = SecureRandom.bytes(12)
        var attributes: [STUNAttribute] = [
            .username(remoteUfrag + ":" + localUfrag),
            .priority(configuration.priority),
            .iceControlling(tieBreaker: tieBreaker),
        ]
        if purpose == .nominate { attributes.append(.useCandidate) }
        if let software = configuration.software { attributes.insert(.software(software), at: 0) }
        let request = STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: attributes)
        let consent = purpose == .consent
        transactions.append(ICECheckTransaction(
            transactionID: transactionID, destination: address, purpose: purpose,
            bytes: request.encode(integrityKey: remoteKey, fingerprint: true),
            rto: configuration.rto,
            maxTransmissions: consent ? 1 : configuration.maxTransmissions,
            // A consent check waits for its answer until the next one is sent.
            finalWait: consent ? configuration.consentInterval : configuration.rto * configuration.finalWaitMultiplier,
            now: now))
    }

    /// RFC 7675 §5.1: uniformly 0.8-1.2 times the interval, so checks of many sessions spread out.
    private static func jittered(_ interval: Duration) -> Duration {
        interval * Double.random(in: 0.8...1.2)
    }
}
