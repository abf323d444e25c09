import Foundation
import Logging
import NIOCore
import OnAirCrypto
import OnAirDTLS
import OnAirForwarding
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// The media plane: every room and session, the datagram router and the timers. Confined to
/// one event loop (like a mediasoup worker); HTTP handlers reach it through ``perform(_:)``.
public final class RelayEngine: DatagramReceiver, @unchecked Sendable {
    // @unchecked: every property is touched only on `loop`; `perform` hops there first.
    public let loop: EventLoop
    let sender: BatchedDatagramSender
    let udpPort: Int
    let config: RelayConfig
    let certificate: DTLSCertificate
    let logger: Logger

    var rooms: [String: Room] = [:]
    var sessions: [String: MediaSession] = [:]
    var sessionsByUfrag: [String: MediaSession] = [:]
    var sessionsByAddress: [TransportAddress: MediaSession] = [:]
    var unroutable: UInt64 = 0
    /// Run-padded packets of rooms that are gone (a counter must not go down).
    var endedRoomsPaddedPackets: UInt64 = 0
    /// Our SSRC as an RTCP sender towards publishers (RR, PLI, REMB).
    let rtcpSenderSSRC = SecureRandom.uint32()
    /// LL-HLS settings (``HLSSettings``): the config's `hls:` section unless a test changes them.
    public var hlsSettings: HLSSettings
    /// LL-HLS figures of every branch (`/metrics`).
    let hlsStatistics = HLSStatistics()
    /// The background queue that recordings are written on (``StreamRecorder``).
    let recordings = RecordingWriter()
    /// Finished presentations still served (EXT-X-ENDLIST) for a while after their stream.
    var endedHLS: [String: (branch: HLSBranch, until: MonoTime)] = [:]
    /// Told about streams starting and ending (webhooks); nil in tests that do not care.
    public var lifecycleObserver: StreamLifecycleObserver?
    private var events: [PeerEvent] = []
    /// Sequence numbers to NACK upstream, and those given up, reused (``requestRepairs(_:now:)``).
    var dueRepairs: [UInt16] = []
    var givenUpRepairs: [UInt16] = []
    /// Scratch for viewers' unconfirmed resends (``Room/resendUnconfirmed``).
    var overdueResends: [UInt16] = []
    /// The layers of the room being decided (``selectLayers(_:now:)``), reused.
    var layerCandidates: [LayerCandidate] = []
    private var ticks: UInt64 = 0
    /// Rooms with publisher packets waiting for the end of the read batch (``Room/fanOutPending``).
    private var roomsAwaitingFanOut: [Room] = []
    private var timer: RepeatedTask?
    private var lastReportTick = MonoTime.zero
    /// How busy this loop's thread is; new viewers get 503 above `limits.max_media_load`.
    var mediaLoad = MediaLoadMeter()

    public init(loop: EventLoop, sender: BatchedDatagramSender, udpPort: Int, config: RelayConfig,
                certificate: DTLSCertificate, logger: Logger) {
        self.loop = loop
        self.sender = sender
        self.udpPort = udpPort
        self.config = config
        self.certificate = certificate
        self.logger = logger
        hlsSettings = config.hls
        events.reserveCapacity(16)
        roomsAwaitingFanOut.reserveCapacity(16)
        dueRepairs.reserveCapacity(512)
        givenUpRepairs.reserveCapacity(512)
    }

    /// Runs `body` on the engine's loop and returns its result.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (RelayEngine) throws -> T) async throws -> T {
        try await loop.submit { try body(self) }.get()
    }

    func startTimers() {
        timer = loop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { [weak self] _ in
            self?.tick(now: MonoTime.now())
        }
    }

    // MARK: datagrams

    public func receive(_ datagram: ByteBuffer, from address: TransportAddress, now: MonoTime) {
        guard datagram.readableBytes >= 2 else { unroutable += 1; return }
        let bytes = Array(datagram.readableBytesView)
        var session = sessionsByAddress[address]
        if session == nil, DatagramKind.classify(bytes) == .stun,
           let ufrag = PeerSession.localUfrag(ofCheck: bytes) {
            session = sessionsByUfrag[ufrag]
        }
        guard let session, !session.ended else { unroutable += 1; return }
        events.removeAll(keepingCapacity: true)
        session.peer.receive(bytes, from: address, now: now, events: &events)
        handle(events: events, of: session, now: now)
    }

    public func readBatchComplete() {
        fanOutPending()
        sender.flush()
    }

    /// Sends every room's pending publisher packets to its viewers. Runs at the end of each
    /// read batch, and before anything that changes who is in a room.
    func fanOutPending() {
        guard !roomsAwaitingFanOut.isEmpty else { return }
        let now = MonoTime.now()
        for room in roomsAwaitingFanOut {
            requestRepairs(room, now: now)
            room.awaitingFanOut = false
            room.fanOutPending(sender: sender, now: now)
        }
        roomsAwaitingFanOut.removeAll(keepingCapacity: true)
    }

    func handle(events: [PeerEvent], of session: MediaSession, now: MonoTime) {
        for event in events {
            switch event {
            case .send(let bytes, let address):
                sender.enqueue(bytes, to: session.destination?.address == address ? session.destination! : DatagramDestination(address))
            case .selected(let address):
                if let old = session.destination?.address, old != address { sessionsByAddress[old] = nil }
                sessionsByAddress[address] = session
                session.destination = DatagramDestination(address)
            case .connected:
                session.connectedAt = now
                connected(session, now: now)
            case .rtp(let packet):
                guard let publisher = session as? PublisherSession, let room = rooms[session.room],
                      room.publisher === publisher else { continue }
                room.forward(packet, from: publisher, now: now, sender: sender)
                if !room.awaitingFanOut && !room.pendingPackets.isEmpty {
                    room.awaitingFanOut = true
                    roomsAwaitingFanOut.append(room)
                }
                if room.needsKeyframe { requestKeyframes(room, now: now) }
            case .rtcp(let packet):
                handleRTCP(packet, from: session, now: now)
            case .closed(let reason):
                end(session, reason: Self.endReason(reason), now: now)
            }
        }
    }

    // MARK: timers

    func tick(now: MonoTime) {
        fanOutPending()
        mediaLoad.sample(cpuNanoseconds: MediaLoadMeter.threadCPUNanoseconds(),
                         viewers: rooms.values.reduce(0) { $0 + $1.viewers.count }, at: now)
        for session in sessions.values where !session.ended {
            events.removeAll(keepingCapacity: true)
            session.peer.poll(now: now, events: &events)
            if !events.isEmpty { handle(events: events, of: session, now: now) }
        }
        let deadline = NIODeadline.now()
        for branch in endedHLS.values { branch.branch.expireWaiters(now: deadline) }
        ticks &+= 1
        for room in rooms.values {
            room.hls?.expireWaiters(now: deadline)
            requestRepairs(room, now: now)
            pollKeyframeRequests(room, now: now)
            if let publisher = room.publisher { sendTransportFeedback(publisher, now: now) }
            if ticks % 5 == 0 { selectLayers(room, now: now) }
            sendProbePadding(room, now: now, interval: .milliseconds(20))
            for viewer in room.viewers { room.resendUnconfirmed(to: viewer, scratch: &overdueResends, now: now, sender: sender) }
        }
        if now - lastReportTick >= .seconds(1) {
            let elapsed = min(now - lastReportTick, .seconds(2))
            lastReportTick = now
            endedHLS = endedHLS.filter { $0.value.until > now }
            for room in rooms.values {
                sendPeriodicReports(room: room, now: now)
                for viewer in room.viewers where viewer.connectedAt != nil {
                    viewer.sampleRates(now: now)
                    if viewer.video != nil && viewer.video?.current == nil && viewer.selector.target == nil {
                        viewer.pausedTime += elapsed
                    }
                }
            }
        }
        sender.flush()
    }

    // MARK: lifecycle

    func connected(_ session: MediaSession, now: MonoTime) {
        guard let room = rooms[session.room] else { return }
        if let publisher = session as? PublisherSession, room.publisher === publisher {
            let wall = Date()
            room.startedAt = (now, wall)
            logger.info("stream started", metadata: ["room": "\(room.id)", "session": "\(session.id)"])
            lifecycleObserver?.streamStarted(StreamStarted(
                room: room.id, sessionID: session.id, codecs: snapshot(room: room.id)?.codecs ?? [],
                at: wall.timeIntervalSince1970))
        } else if let viewer = session as? ViewerSession {
            logger.info("viewer connected", metadata: ["room": "\(room.id)", "session": "\(session.id)"])
            selectLayerNow(for: viewer, in: room, now: now)
            notifyViewers(room)
        }
    }

    /// Ends a session: tells the peer (close_notify), forgets its routes, and when it was the
    /// publisher, ends the stream for every viewer.
    func end(_ session: MediaSession, reason: StreamEndReason, now: MonoTime) {
        guard !session.ended else { return }
        fanOutPending()
        session.ended = true
        events.removeAll(keepingCapacity: true)
        session.peer.close(events: &events)
        for case .send(let bytes, let address) in events { sender.enqueue(bytes, to: DatagramDestination(address)) }
        sessions[session.id] = nil
        sessionsByUfrag[session.localUfrag] = nil
        if let address = session.destination?.address, sessionsByAddress[address] === session {
            sessionsByAddress[address] = nil
        }
        guard let room = rooms[session.room] else { return }
        if let publisher = session as? PublisherSession, room.publisher === publisher {
            room.publisher = nil
            let duration = room.startedAt.map { (now - $0.mono).seconds } ?? 0
            logger.info("stream ended", metadata: ["room": "\(room.id)", "session": "\(session.id)", "reason": "\(reason.rawValue)",
                                                   "duration_s": "\(Int(duration))", "peak_viewers": "\(room.peakViewers)"])
            if room.startedAt != nil {
                lifecycleObserver?.streamEnded(StreamEnded(
                    room: room.id, sessionID: session.id, reason: reason, durationSeconds: duration,
                    bytesIn: room.bytesIn, bytesOut: room.bytesOut, peakViewers: room.peakViewers,
                    at: Date().timeIntervalSince1970))
            }
            room.startedAt = nil
            if let hls = room.hls {
                hls.finish()
                endedHLS[room.id] = (hls, now + hlsSettings.keepAfterEnd)
                room.hls = nil
            }
            for viewer in room.viewers { end(viewer, reason: reason, now: now) }
        } else if let viewer = session as? ViewerSession {
            let wasConnected = viewer.connectedAt != nil
            room.viewers.removeAll { $0 === viewer }
            room.departedSwitchesUp += viewer.selector.upSwitches
            room.departedSwitchesDown += viewer.selector.downSwitches
            room.departedPausedTime += viewer.pausedTime
            logger.info("viewer left", metadata: ["room": "\(room.id)", "session": "\(session.id)"])
            if wasConnected && room.publisher != nil { notifyViewers(room) }
        }
        if room.isEmpty {
            endedRoomsPaddedPackets += room.paddedPackets
            rooms[room.id] = nil
        }
        sender.flush()
    }

    func notifyViewers(_ room: Room) {
        guard let publisher = room.publisher else { return }
        lifecycleObserver?.viewersChanged(room: room.id, sessionID: publisher.id,
                                          viewers: room.viewers.filter { $0.connectedAt != nil }.count)
    }

    /// Ends the live stream of `room` on purpose; false when nothing is live there.
    func kick(room: String) -> Bool {
        guard let publisher = rooms[room]?.publisher else { return false }
        end(publisher, reason: .kicked, now: MonoTime.now())
        return true
    }

    static func endReason(_ reason: PeerCloseReason) -> StreamEndReason {
        switch reason {
        case .dtlsClosed: return .dtlsClosed
        case .dtlsFailed: return .dtlsFailed
        case .consentExpired, .connectTimeout: return .publisherTimeout
        case .local: return .publisherDeleted
        }
    }

    func shutdown() {
        let now = MonoTime.now()
        let publishersFirst = sessions.values.sorted { ($0.kind == .publisher ? 0 : 1) < ($1.kind == .publisher ? 0 : 1) }
        for session in publishersFirst { end(session, reason: .relayShutdown, now: now) }
        timer?.cancel()
        sender.flush()
    }

    // MARK: snapshots

    /// Run-padded packets of every room, ended ones included.
    var paddedPackets: UInt64 { endedRoomsPaddedPackets + rooms.values.reduce(0) { $0 + $1.paddedPackets } }

    func counters() -> EngineCounters {
        EngineCounters(sessions: sessions.count, datagramsSent: sender.sent, datagramsDropped: sender.dropped,
                       sendMessages: sender.messagesSent, segmentationFallbacks: sender.segmentationFallbacks,
                       paddedPackets: paddedPackets,
                       mediaLoad: mediaLoad.load, unroutable: unroutable, srtpFailures: rooms.values.reduce(0) { $0 + $1.srtpFailures })
    }
}
