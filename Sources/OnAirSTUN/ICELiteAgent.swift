import OnAirWire

/// The ICE-lite side of a session (RFC 8445 §2.5): it never sends checks, it answers the
/// peer's connectivity checks, selects the pair the peer nominates, and tracks whether the peer
/// still consents to receive media (RFC 7675). Sans-I/O: bytes and `now` in, datagrams out.
///
/// A lite agent is always the controlled agent (RFC 8445 §6.1.1), so it answers a check that
/// also claims ICE-CONTROLLED with 487 Role Conflict rather than switching roles.
public struct ICELiteAgent: Sendable, CustomStringConvertible {
    /// Our credentials: checks to us carry USERNAME "localUfrag:remoteUfrag" and are signed with
    /// `localPassword`, and so are our responses (RFC 8445 §7.2.2, §7.3).
    public private(set) var localUfrag: String
    public private(set) var localPassword: String
    /// The peer's credentials, when known. Only the ufrag matters to a lite agent (it is the
    /// second half of USERNAME); until it arrives, only our half is checked (RFC 8445 §7.3).
    public private(set) var remoteUfrag: String?
    public private(set) var remotePassword: String?
    /// How long the selected pair stays usable without authenticated traffic from the peer.
    public var consentTimeout: Duration
    /// The address the peer nominated last (RFC 8445 §8.1.1: latest nomination wins for us).
    public private(set) var selectedAddress: TransportAddress?
    /// When authenticated traffic last arrived from ``selectedAddress``.
    public private(set) var lastActivity: MonoTime?

    /// The HMAC key, the UTF-8 password (RFC 8489 §9.1.1; ICE passwords are ASCII so OpaqueString
    /// preparation changes nothing). Cached because every check needs it twice.
    private var localKey: [UInt8]

    /// - Parameter consentTimeout: RFC 7675 §5.1 lets consent lapse 30 s after the last
    ///   authenticated response; we default to that. Shorter values notice a vanished peer sooner
    ///   but must stay above the peer's check interval (4-6 s for RFC 7675 senders) unless media
    ///   also refreshes consent through ``noteAuthenticatedTraffic(from:now:)``.
    public init(localUfrag: String, localPassword: String, remoteUfrag: String?, remotePassword: String?,
                consentTimeout: Duration = .seconds(30)) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.consentTimeout = consentTimeout
        self.localKey = Array(localPassword.utf8)
    }

    /// Handles one datagram that arrived from `source`.
    public mutating func receive(_ bytes: [UInt8], from source: TransportAddress, now: MonoTime) -> ICEReceiveResult {
        guard STUNMessage.isSTUN(bytes) else { return .ignore(.notSTUN) }
        let request: STUNMessage
        do {
            request = try STUNMessage.parse(bytes)
        } catch {
            // RFC 8489 §6.3: a request whose header survived can still be told it was bad, which
            // stops the peer's retransmissions sooner than silence would.
            if let header = try? STUNHeader.parse(bytes), header.type.messageClass == .request {
                let stub = STUNMessage(type: header.type, transactionID: header.transactionID)
                return reject(stub, .badRequest, to: source, authenticated: false)
            }
            return .ignore(.malformed(error))
        }
        if request.fingerprint != nil, !STUNMessage.verifyFingerprint(bytes) { return .ignore(.badFingerprint) }
        switch request.type.messageClass {
        case .indication: return .ignore(.indication)
        case .successResponse, .errorResponse: return .ignore(.response)
        case .request: break
        }

        // RFC 8489 §9.1.3 short-term credential checks, unauthenticated answers.
        guard let username = request.username, request.messageIntegrity != nil else {
            return reject(request, .badRequest, to: source, authenticated: false)
        }
        guard usernameIsOurs(username),
              STUNMessage.verifyMessageIntegrity(bytes, key: localKey) else {
            return reject(request, .unauthenticated, to: source, authenticated: false)
        }

        // Authenticated from here on: answers carry MESSAGE-INTEGRITY.
        let unknown = request.unknownComprehensionRequiredAttributes()
        guard unknown.isEmpty else {
            return reject(request, .unknownAttribute, to: source, authenticated: true, unknown: unknown)
        }
        // RFC 8445 §7.1.1: PRIORITY is mandatory in a check.
        guard request.type.method == .binding, request.priority != nil else {
            return reject(request, .badRequest, to: source, authenticated: true)
        }
        // RFC 8445 §7.3.1.1: both sides claim controlled; we cannot take the controlling role.
        guard request.attribute(.iceControlled) == nil else {
            return reject(request, .roleConflict, to: source, authenticated: true)
        }

        var nominated: TransportAddress?
        if request.useCandidate {
            // RFC 8445 §7.3.1.5 / §8.1.1: a valid check with USE-CANDIDATE nominates its pair. A
            // peer using aggressive nomination (RFC 5245) sets it on its first check already.
            selectedAddress = source
            nominated = source
        }
        if source == selectedAddress { lastActivity = now }

        let response = STUNMessage(
            type: STUNMessageType(method: .binding, messageClass: .successResponse),
            transactionID: request.transactionID,
            attributes: [.xorMappedAddress(source, transactionID: request.transactionID)])
        let datagram = STUNDatagram(bytes: response.encode(integrityKey: localKey, fingerprint: true), address: source)
        return .respond(datagram, nominated: nominated)
    }

    /// Splits the USERNAME of a Binding request into (local, remote) as seen by the receiver,
    /// i.e. "relayUfrag:peerUfrag" gives (relayUfrag, peerUfrag). The I/O layer uses it to find
    /// the session a first check belongs to. Nil for anything else.
    public static func usernameFragments(of bytes: [UInt8]) -> (local: String, remote: String)? {
        guard STUNMessage.isSTUN(bytes), let message = try? STUNMessage.parse(bytes),
              message.type == .bindingRequest, let username = message.username,
              let colon = username.firstIndex(of: ":") else { return nil }
        let local = String(username[..<colon])
        let remote = String(username[username.index(after: colon)...])
        guard !local.isEmpty, !remote.isEmpty else { return nil }
        return (local, remote)
    }

    /// Media that authenticated (SRTP/SRTCP, DTLS) also proves the peer is alive and consents
    /// (RFC 7675 §5.1 counts any authenticated packet). Only traffic on the selected pair counts.
    /// Cheap enough for every packet: one address comparison and a store.
    public mutating func noteAuthenticatedTraffic(from source: TransportAddress, now: MonoTime) {
        if source == selectedAddress { lastActivity = now }
    }

    /// True when a pair is selected and no authenticated traffic arrived on it for
    /// ``consentTimeout`` (RFC 7675 §5.1): stop sending media there. False before any
    /// nomination; how long to wait for a first nomination is the caller's policy.
    public func consentExpired(now: MonoTime) -> Bool {
        guard selectedAddress != nil, let lastActivity else { return false }
        return now - lastActivity >= consentTimeout
    }

    /// ICE restart (RFC 8445 §9): new credentials on both sides. The selected pair keeps
    /// carrying media until the peer nominates again with the new credentials; checks with the
    /// old ones now fail with 401.
    public mutating func restart(localUfrag: String, localPassword: String, remoteUfrag: String?, remotePassword: String?) {
        self.localUfrag = localUfrag
        self.localPassword = localPassword
        self.localKey = Array(localPassword.utf8)
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
    }

    /// The peer's credentials arrived later (trickle, RFC 8838).
    public mutating func setRemoteCredentials(ufrag: String, password: String) {
        remoteUfrag = ufrag
        remotePassword = password
    }

    /// Leaves the passwords out: this ends up in logs and test failure messages.
    public var description: String {
        "ICELiteAgent(\(localUfrag):\(remoteUfrag ?? "?"), selected: \(selectedAddress?.description ?? "none"), "
            + "lastActivity: \(lastActivity?.description ?? "never"))"
    }

    /// USERNAME must be "localUfrag:remoteUfrag"; without a remote ufrag yet, only our half.
    private func usernameIsOurs(_ username: String) -> Bool {
        if let remoteUfrag { return username == localUfrag + ":" + remoteUfrag }
        guard let colon = username.firstIndex(of: ":") else { return false }
        return username[..<colon] == localUfrag
    }

    /// RFC 8489 §6.3.4 error response. Authentication failures are answered without
    /// MESSAGE-INTEGRITY (§9.1.3: we do not trust the request enough to sign); all carry
    /// FINGERPRINT so the peer can demultiplex them.
    private func reject(_ request: STUNMessage, _ error: STUNErrorCode, to source: TransportAddress,
                        authenticated: Bool, unknown: [STUNAttributeType] = []) -> ICEReceiveResult {
        let response = STUNMessage.errorResponse(to: request, error: error, unknownAttributes: unknown)
        let bytes = response.encode(integrityKey: authenticated ? localKey : nil, fingerprint: true)
        return .reject(STUNDatagram(bytes: bytes, address: source), error: error)
    }
}
