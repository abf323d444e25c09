import OnAirCrypto
import OnAirWire

/// A TURN client (RFC 8656) for one allocation, sans-I/O: what goes to the server comes out of
/// ``poll(now:)``, what the server sends goes into ``receive(_:now:)``. The caller owns the
/// transport (UDP, TCP or TLS to the server) and calls `poll` at ``nextTimeout``.
///
/// - Allocate (§7.2) with REQUESTED-TRANSPORT UDP; the first attempt goes without credentials,
///   the 401 gives REALM and NONCE, the retry carries the long-term credential (RFC 8489
///   §9.2.4); a 438 Stale Nonce is retried with the new nonce (§9.2.5).
/// - Refresh (§7.4) a minute before the lifetime ends; lifetime 0 deallocates (§7.2).
/// - CreatePermission (§10) per peer address, refreshed every 4 minutes (permissions last 5, §9).
/// - ChannelBind (§12) per peer on request, refreshed every 9 minutes (channels last 10).
public struct TURNClient: Sendable {
    public enum State: Equatable, Sendable {
        case idle
        case allocating
        case allocated
        /// The Refresh with lifetime 0 is out.
        case deallocating
        case closed
        case failed(String)
    }

    /// LIFETIME asked for in Allocate (§7.2: the server may choose otherwise; 600 s is its default).
    public static let requestedLifetime: UInt32 = 600
    static let permissionRefresh: Duration = .seconds(240)
    static let channelRefresh: Duration = .seconds(540)
    static let maxStaleNonceRetries = 3

    public let username: String
    private let password: String
    /// TCP or TLS to the server: requests are not retransmitted (RFC 8489 §6.2.2).
    public let isReliable: Bool
    /// Sent as SOFTWARE when set (RFC 8489 §14.14).
    public var software: String?
    public private(set) var state: State = .idle
    public private(set) var relayedAddress: TransportAddress?
    public private(set) var mappedAddress: TransportAddress?
    public private(set) var lifetimeSeconds: UInt32 = 0

    private var credential: STUNLongTermCredential?
    private var transactions: [TURNTransaction] = []
    private var allocationRefreshAt: MonoTime?
    /// One entry per peer IP address (the port is whatever peer asked first).
    private var permissions: [(peer: TransportAddress, granted: Bool, refreshAt: MonoTime?)] = []
    private var channels: [(peer: TransportAddress, number: UInt16, bound: Bool, refreshAt: MonoTime?)] = []
    private var nextChannelNumber = ChannelData.numbers.lowerBound

    public init(username: String, password: String, reliable: Bool, software: String? = nil) {
        self.username = username
        self.password = password
        isReliable = reliable
        self.software = software
    }

    // MARK: Asking

    /// Starts the allocation (the first Allocate goes out at the next ``poll(now:)``).
    public mutating func allocate(now: MonoTime) {
        guard state == .idle else { return }
        state = .allocating
        start(.allocate, now: now)
    }

    /// Asks for permissions for these peers (§10.1: one CreatePermission for all new addresses);
    /// asked before the allocation exists, they are sent once it does.
    public mutating func permit(_ peers: [TransportAddress], now: MonoTime) {
        var fresh: [TransportAddress] = []
        for peer in peers where !permissions.contains(where: { $0.peer.ip == peer.ip }) && !fresh.contains(where: { $0.ip == peer.ip }) {
            fresh.append(peer)
        }
        permissions += fresh.map { ($0, false, nil) }
        if state == .allocated, !fresh.isEmpty { start(.createPermission(fresh), now: now) }
    }

    /// Binds the next free channel to `peer` (§12.1) unless one is bound or asked for already.
    public mutating func bindChannel(to peer: TransportAddress, now: MonoTime) {
        guard state == .allocated, !channels.contains(where: { $0.peer == peer }),
              nextChannelNumber <= ChannelData.numbers.upperBound else { return }
        channels.append((peer, nextChannelNumber, false, nil))
        start(.channelBind(peer, nextChannelNumber), now: now)
        nextChannelNumber += 1
    }

    /// Deletes the allocation (§7.2: Refresh with LIFETIME 0), sent at the next poll.
    public mutating func deallocate(now: MonoTime) {
        guard state == .allocated else {
            state = .closed
            return
        }
        state = .deallocating
        transactions.removeAll()
        start(.refresh(lifetime: 0), now: now)
    }

    // MARK: Looking up

    /// The bound channel to `peer`, if its ChannelBind succeeded.
    public func channel(for peer: TransportAddress) -> UInt16? {
        channels.first { $0.peer == peer && $0.bound }?.number
    }

    /// The peer a ChannelData message on `number` comes from.
    public func peer(forChannel number: UInt16) -> TransportAddress? {
        channels.first { $0.number == number && $0.bound }?.peer
    }

    /// Whether data to `peer` will pass the server's permission check (§9).
    public func isPermitted(_ peer: TransportAddress) -> Bool {
        permissions.contains { $0.peer.ip == peer.ip && $0.granted } || channels.contains { $0.peer.ip == peer.ip && $0.bound }
    }

    /// §11.1 Send indication carrying `payload` to `peer` (no credentials: indications are not
    /// authenticated). For data before a channel is bound; ChannelData is 32 bytes smaller.
    public func sendIndication(_ payload: [UInt8], to peer: TransportAddress) -> [UInt8] {
        let transactionID = SecureRandom.bytes(12)
        let message = STUNMessage(type: STUNMessageType(method: .send, messageClass: .indication), transactionID: transactionID,
                                  attributes: [.xorPeerAddress(peer, transactionID: transactionID), .data(payload)])
        return message.encode(integrityKey: nil, fingerprint: false)
    }

    // MARK: Driving

    /// When ``poll(now:)`` next has work: a retransmission, a timeout or a refresh.
    public var nextTimeout: MonoTime? {
        // Asked on every pass of the broadcaster's loop: no arrays built.
        var earliest = allocationRefreshAt
        func consider(_ time: MonoTime?) {
            guard let time else { return }
            if earliest.map({ time < $0 }) ?? true { earliest = time }
        }
        for transaction in transactions { consider(transaction.deadline) }
        for permission in permissions { consider(permission.refreshAt) }
        for channel in channels { consider(channel.refreshAt) }
        return earliest
    }

    /// Starts due refreshes, runs the request timers and returns the messages to send.
    public mutating func poll(now: MonoTime) -> [[UInt8]] {
        if state == .allocated {
            if let due = allocationRefreshAt, now >= due {
                allocationRefreshAt = nil
                start(.refresh(lifetime: Self.requestedLifetime), now: now)
            }
            let stale = permissions.filter { $0.refreshAt.map { now >= $0 } ?? false }.map(\.peer)
            if !stale.isEmpty {
                for index in permissions.indices where stale.contains(permissions[index].peer) { permissions[index].refreshAt = nil }
                start(.createPermission(stale), now: now)
            }
            for index in channels.indices {
                guard let due = channels[index].refreshAt, now >= due else { continue }
                channels[index].refreshAt = nil
                start(.channelBind(channels[index].peer, channels[index].number), now: now)
            }
        }
        var out: [[UInt8]] = []
        var expired: [TURNRequest] = []
        var live: [TURNTransaction] = []
        for var transaction in transactions {
            switch transaction.step(now: now) {
            case true?:
                out.append(transaction.bytes)
                live.append(transaction)
            case false?: live.append(transaction)
            case nil: expired.append(transaction.request)
            }
        }
        transactions = live
        for request in expired {
            switch request {
            case .allocate: state = .failed("the TURN server did not answer the Allocate")
            case .refresh(let lifetime) where lifetime > 0: state = .failed("the TURN server did not answer a Refresh")
            case .refresh: state = .closed
            case .createPermission, .channelBind: break
            }
        }
        return out
    }

    /// Handles one STUN message from the server (ChannelData is the caller's, through
    /// ``peer(forChannel:)``). Responses that match no request, or whose MESSAGE-INTEGRITY does
    /// not verify, are dropped (RFC 8489 §9.2.5).
    public mutating func receive(_ bytes: [UInt8], now: MonoTime) -> TURNClientEvent? {
        guard let message = try? STUNMessage.parse(bytes) else { return nil }
        switch message.type.messageClass {
        case .indication:
            guard message.type.method == .data, let peer = message.xorPeerAddress, let data = message.data else { return nil }
            return .data(peer, data)
        case .successResponse, .errorResponse:
            guard let index = transactions.firstIndex(where: { $0.transactionID == message.transactionID }) else { return nil }
            // RFC 8489 §9.2.5: once we hold a credential, a response whose MESSAGE-INTEGRITY does
            // not verify is discarded, and so is a success response without one (only errors such
            // as 401 and 438 may come unsigned).
            if let key = credential?.key {
                if message.messageIntegrity != nil {
                    guard STUNMessage.verifyMessageIntegrity(bytes, key: key) else { return nil }
                } else if message.type.messageClass == .successResponse {
                    return nil
                }
            }
            let transaction = transactions.remove(at: index)
            return message.type.messageClass == .successResponse
                ? succeeded(transaction.request, message, now: now)
                : refused(transaction, message, now: now)
        case .request:
            return nil
        }
    }

    // MARK: Answers

    private mutating func succeeded(_ request: TURNRequest, _ response: STUNMessage, now: MonoTime) -> TURNClientEvent? {
        switch request {
        case .allocate:
            guard let relayed = response.xorRelayedAddress else {
                state = .failed("the Allocate success has no XOR-RELAYED-ADDRESS")
                return .failed("the Allocate success has no XOR-RELAYED-ADDRESS")
            }
            state = .allocated
            relayedAddress = relayed
            mappedAddress = response.xorMappedAddress
            scheduleRefresh(lifetime: response.lifetime ?? Self.requestedLifetime, now: now)
            let waiting = permissions.map(\.peer)
            if !waiting.isEmpty { start(.createPermission(waiting), now: now) }
            return .allocated(relayed: relayed, mapped: mappedAddress)
        case .refresh(let lifetime):
            guard lifetime > 0 else {
                state = .closed
                return .deallocated
            }
            scheduleRefresh(lifetime: response.lifetime ?? lifetime, now: now)
            return .refreshed(lifetimeSeconds: lifetimeSeconds)
        case .createPermission(let peers):
            for index in permissions.indices where peers.contains(where: { $0.ip == permissions[index].peer.ip }) {
                permissions[index].granted = true
                permissions[index].refreshAt = now + Self.permissionRefresh
            }
            return .permissionsGranted(peers)
        case .channelBind(let peer, let number):
            guard let index = channels.firstIndex(where: { $0.number == number }) else { return nil }
            channels[index].bound = true
            channels[index].refreshAt = now + Self.channelRefresh
            return .channelBound(peer, channel: number)
        }
    }

    private mutating func refused(_ transaction: TURNTransaction, _ response: STUNMessage, now: MonoTime) -> TURNClientEvent? {
        let error = response.errorCode ?? .badRequest
        // RFC 8489 §9.2.5: a 401 to a request without credentials names the realm and nonce to use;
        // a 438 a fresh nonce. Either way the request goes again.
        if error.code == 401, credential == nil, let realm = response.realm, let nonce = response.nonce {
            credential = STUNLongTermCredential(username: username, password: password, realm: realm, nonce: nonce)
            start(transaction.request, now: now)
            return nil
        }
        if error.code == 438, let nonce = response.nonce, transaction.staleNonceRetries < Self.maxStaleNonceRetries {
            if let old = credential {
                credential = STUNLongTermCredential(username: username, password: password,
                                                    realm: response.realm ?? old.realm, nonce: nonce)
            }
            start(transaction.request, staleNonceRetries: transaction.staleNonceRetries + 1, now: now)
            return nil
        }
        let reason = "TURN \(transaction.request.method) refused: \(error)"
        switch transaction.request {
        case .allocate:
            state = .failed(error.code == 401 ? "the TURN server refused the credentials (\(error))" : reason)
            return .failed(reason)
        case .refresh(let lifetime):
            state = lifetime == 0 ? .closed : .failed(reason)
            return lifetime == 0 ? .deallocated : .failed(reason)
        case .createPermission, .channelBind:
            if case .channelBind(_, let number) = transaction.request { channels.removeAll { $0.number == number && !$0.bound } }
            return .requestFailed(reason)
        }
    }

    /// §7.3: refresh a minute before the lifetime ends (halfway for lifetimes under 2 minutes).
    private mutating func scheduleRefresh(lifetime: UInt32, now: MonoTime) {
        lifetimeSeconds = lifetime
        let seconds = lifetime >= 120 ? Int64(lifetime) - 60 : Int64(lifetime) / 2
        allocationRefreshAt = now + .seconds(max(1, seconds))
    }

    private mutating func start(_ request: TURNRequest, staleNonceRetries: Int = 0, now: MonoTime) {
        let transactionID = SecureRandom.bytes(12)
        var attributes = request.attributes(transactionID: transactionID)
        if let software { attributes.insert(.software(software), at: 0) }
        if let credential { attributes += credential.attributes }
        let message = STUNMessage(type: STUNMessageType(method: request.method, messageClass: .request),
                                  transactionID: transactionID, attributes: attributes)
        transactions.append(TURNTransaction(request: request, transactionID: transactionID,
                                            bytes: message.encode(integrityKey: credential?.key, fingerprint: true),
                                            reliable: isReliable, staleNonceRetries: staleNonceRetries, now: now))
    }
}
