import Foundation
import Logging
import OnAirCrypto
import OnAirDTLS
import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// The media plane, sans I/O: every room and session, the datagram router, the per-viewer
/// forwarding and its timers. Datagrams come in through ``receive(_:from:now:)``, go out
/// through a ``DatagramSink``; time is whatever `now` the caller passes (the relay's event
/// loop in production, a manual clock in tests). Confined to one thread.
package final class MediaPlane {
    package let sender: any DatagramSink
    package let settings: MediaPlaneSettings
    package let certificate: DTLSCertificate
    package let logger: Logger

    package var rooms: [String: Room] = [:]
    package var sessions: [String: MediaSession] = [:]
    package var sessionsByUfrag: [String: MediaSession] = [:]
    package var sessionsByAddress: [TransportAddress: MediaSession] = [:]
    package var unroutable: UInt64 = 0
    /// Run-padded packets of rooms that are gone (a counter must not go down).
    package var endedRoomsPaddedPackets: UInt64 = 0
    /// SRTP/SRTCP failures of sessions that are gone (a counter must not go down).
    package var endedSessionsSRTPFailures: UInt64 = 0
    /// Our SSRC as an RTCP sender towards publishers (RR, PLI, REMB).
    package let rtcpSenderSSRC: UInt32
    /// The time of day and the random source (``PlaneEnvironment``).
    package let environment: PlaneEnvironment
    /// Told about streams starting and ending (webhooks); nil in tests that do not care.
    package var lifecycleObserver: StreamLifecycleObserver?
    /// Each worker's doorbell, in worker order, for the feeds of streams published here.
    package var feedWakeups: [(any TapWakeup)?] = []
    /// Rooms here whose stream is published on another worker (``Room/upstream``).
    package var replicas: [Room] = []
    /// Feed records dropped by streams that ended here (a counter must not go down).
    package var endedFeedsDropped: UInt64 = 0
    /// Makes the tap (LL-HLS) of a new publisher's stream; nil: no tap.
    package var makeTap: ((_ room: String, _ publisher: PublisherSession) -> MediaTapRing?)?
    private var events: [PeerEvent] = []
    /// Sequence numbers to NACK upstream, and those given up, reused (``requestRepairs(_:now:)``).
    package var dueRepairs: [UInt16] = []
    package var givenUpRepairs: [UInt16] = []
    package var lossTimestamps: [UInt32] = []
    /// Scratch for viewers' unconfirmed resends (``Room/resendUnconfirmed``).
    package var overdueResends: [UInt16] = []
    /// The layers of the room being decided (``selectLayers(_:now:)``), reused.
    package var layerCandidates: [LayerCandidate] = []
    private var ticks: UInt64 = 0
    /// Rooms with publisher packets waiting for the end of the read batch (``Room/fanOutPending``).
    private var roomsAwaitingFanOut: [Room] = []
    private var lastReportTick = MonoTime.zero
    /// Decrypted publisher packets until the end of the read batch.
    package let inbound = InboundPacketSlab()
    /// Datagrams too large for a slot (not media of ours), dropped.
    package var oversizeDatagrams: UInt64 = 0
    /// How busy the thread forwarding is; new viewers get 503 above `maxMediaLoad`.
    package var mediaLoad = MediaLoadMeter()

    package init(sender: any DatagramSink, settings: MediaPlaneSettings, certificate: DTLSCertificate, logger: Logger,
                 environment: PlaneEnvironment = .system) {
        self.environment = environment
        rtcpSenderSSRC = environment.uint32()
        self.sender = sender
        self.settings = settings
        self.certificate = certificate
        self.logger = logger
        events.reserveCapacity(16)
        roomsAwaitingFanOut.reserveCapacity(16)
        dueRepairs.reserveCapacity(512)
        givenUpRepairs.reserveCapacity(512)
        lossTimestamps.reserveCapacity(512)
    }

    // MARK: datagrams

    /// One datagram from `address`, demultiplexed by RFC 7983. SRTP and SRTCP are decrypted in
    /// a slot of ``inbound`` (the per-packet path allocates nothing); STUN and DTLS go to the
    /// session's peer as arrays.
    package func receive(_ datagram: UnsafeRawBufferPointer, from address: TransportAddress, now: MonoTime) {
        let kind = DatagramKind.classify(datagram)
        guard kind != .unknown else { unroutable += 1; return }
        guard kind == .rtp || kind == .rtcp else {
            receiveControl(Array(datagram), kind: kind, from: address, now: now)
            return
        }
        guard let session = sessionsByAddress[address], !session.ended else { unroutable += 1; return }
        guard datagram.count <= InboundPacketSlab.slotSize else { oversizeDatagrams &+= 1; return }
        // A packet and the original an RTX packet may carry: two slots.
        if inbound.freeSlots < 2 { fanOutPending(now: now) }
        guard let slot = inbound.nextSlot() else { return }
        UnsafeMutableRawBufferPointer(rebasing: slot[..<datagram.count]).copyMemory(from: datagram)
        if kind == .rtcp {
            guard let length = session.peer.unprotectRTCP(slot, length: datagram.count, from: address, now: now) else { return }
            handleRTCP(Array(UnsafeRawBufferPointer(rebasing: slot[..<length])), from: session, now: now)
        } else {
            // The header is read once, here, for SRTP and for every stage after it.
            guard let (length, view) = session.peer.unprotectRTP(slot, length: datagram.count, from: address, now: now) else { return }
            receiveRTP(UnsafeRawBufferPointer(rebasing: slot[..<length]), view: view, from: session, now: now)
        }
    }

    /// STUN and DTLS: to the session's peer. A first connectivity check from a new address
    /// finds its session by the ufrag in its USERNAME (RFC 8445 §7.2.2).
    private func receiveControl(_ bytes: [UInt8], kind: DatagramKind, from address: TransportAddress, now: MonoTime) {
        var session = sessionsByAddress[address]
        if session == nil, kind == .stun, let ufrag = PeerSession.localUfrag(ofCheck: bytes) {
            session = sessionsByUfrag[ufrag]
        }
        guard let session, !session.ended else { unroutable += 1; return }
        events.removeAll(keepingCapacity: true)
        session.peer.receive(bytes, from: address, now: now, events: &events)
        handle(events: events, of: session, now: now)
    }

    /// One datagram held in an array (tests, tools).
    package func receive(_ datagram: [UInt8], from address: TransportAddress, now: MonoTime) {
        datagram.withUnsafeBytes { receive($0, from: address, now: now) }
    }

    /// A decrypted publisher packet (in the slot ``InboundPacketSlab/nextSlot()`` gave): into
    /// its room's fan-out, keeping the slot until the end of the read batch.
    private func receiveRTP(_ packet: UnsafeRawBufferPointer, view: RTPPacketView, from session: MediaSession, now: MonoTime) {
        guard let publisher = session as? PublisherSession, let room = publisher.hub, room.publisher === publisher else { return }
        room.forward(packet, view: view, from: publisher, now: now, sender: sender, slab: inbound)
        if !room.awaitingFanOut && !room.pendingPackets.isEmpty {
            room.awaitingFanOut = true
            roomsAwaitingFanOut.append(room)
        }
        if room.needsKeyframe { requestKeyframes(room, now: now) }
    }

    /// The end of a read batch: the publishers' packets go to the viewers, and out.
    package func readBatchComplete(now: MonoTime) {
        fanOutPending(now: now)
        drainFeeds(now: now)
        sender.flush()
    }

    /// Sends every room's pending publisher packets to its viewers. Runs at the end of each
    /// read batch, and before anything that changes who is in a room.
    package func fanOutPending(now: MonoTime) {
        guard !roomsAwaitingFanOut.isEmpty else { inbound.reset(); return }
        for room in roomsAwaitingFanOut {
            requestRepairs(room, now: now)
            room.awaitingFanOut = false
            room.fanOutPending(sender: sender, now: now)
            room.tap?.announce()
            room.feed?.announce()
        }
        roomsAwaitingFanOut.removeAll(keepingCapacity: true)
        inbound.reset()
    }

    package func handle(events: [PeerEvent], of session: MediaSession, now: MonoTime) {
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
            case .rtp, .rtcp:
                break  // media and RTCP come in through receive(_:from:now:), decrypted in place
            case .closed(let reason):
                end(session, reason: Self.endReason(reason), now: now)
            }
        }
    }

    // MARK: timers

    /// Every 20 ms: ICE/DTLS timers, repairs, keyframe requests, feedback, layer decisions
    /// (every 100 ms), probes, resends, and once a second the reports.
    package func tick(now: MonoTime) {
        fanOutPending(now: now)
        drainFeeds(now: now)
        pruneReplicas()
        for session in sessions.values where !session.ended {
            events.removeAll(keepingCapacity: true)
            session.peer.poll(now: now, events: &events)
            if !events.isEmpty { handle(events: events, of: session, now: now) }
        }
        ticks &+= 1
        for room in rooms.values {
            requestRepairs(room, now: now)
            if let feed = room.feed { room.takeKeyframeRequests(from: feed) }
            if room.needsKeyframe { requestKeyframes(room, now: now) }
            pollKeyframeRequests(room, now: now)
            if let publisher = room.publisher { sendTransportFeedback(publisher, now: now) }
            if ticks % 5 == 0 { selectLayers(room, now: now) }
            sendProbePadding(room, now: now, interval: .milliseconds(20))
            for viewer in room.viewers {
                if let fill = room.fillHolesLeftBehind(by: viewer, now: now, sender: sender), fill.filled > 0 {
                    logger.debug("holes of a layer left filled", metadata: [
                        "session": "\(viewer.id)", "from": "\(fill.first)", "through": "\(fill.last)", "filled": "\(fill.filled)",
                    ])
                }
                room.resendUnconfirmed(to: viewer, scratch: &overdueResends, now: now, sender: sender)
            }
        }
        if now - lastReportTick >= .seconds(1) {
            let elapsed = min(now - lastReportTick, .seconds(2))
            lastReportTick = now
            for room in rooms.values {
                sendPeriodicReports(room: room, now: now)
                if room.upstream != nil { room.stream?.sampleRates(now: now) }
                for viewer in room.viewers where viewer.connectedAt != nil {
                    viewer.sampleRates(now: now)
                    if viewer.video != nil && viewer.video?.current == nil, let reason = viewer.selector.pauseReason {
                        viewer.pausedTime.add(elapsed, reason: reason)
                    }
                }
            }
        }
        sender.flush()
    }

    /// The viewers in every room (for the load meter).
    package var viewerCount: Int { rooms.values.reduce(0) { $0 + $1.viewers.count } }

    // MARK: lifecycle

    package func connected(_ session: MediaSession, now: MonoTime) {
        guard let room = rooms[session.room] else { return }
        if let publisher = session as? PublisherSession, room.publisher === publisher {
            let wall = environment.wallClock()
            room.startedAt = (now, wall)
            room.tap?.start()
            logger.info("stream started", metadata: ["room": "\(room.id)", "session": "\(session.id)"])
            lifecycleObserver?.streamStarted(StreamStarted(
                room: room.id, sessionID: session.id, codecs: snapshot(room: room.id, now: now)?.codecs ?? [],
                at: wall.timeIntervalSince1970))
        } else if let viewer = session as? ViewerSession {
            logger.info("viewer connected", metadata: ["room": "\(room.id)", "session": "\(session.id)"])
            selectLayerNow(for: viewer, in: room, now: now)
            notifyViewers(room)
        }
    }

    /// Ends a session: tells the peer (close_notify), forgets its routes, and when it was the
    /// publisher, ends the stream for every viewer.
    package func end(_ session: MediaSession, reason: StreamEndReason, now: MonoTime) {
        guard !session.ended else { return }
        fanOutPending(now: now)
        session.ended = true
        endedSessionsSRTPFailures &+= session.peer.srtpFailures
        events.removeAll(keepingCapacity: true)
        session.peer.close(events: &events)
        for case .send(let bytes, let address) in events { sender.enqueue(bytes, to: DatagramDestination(address)) }
        sessions[session.id] = nil
        sessionsByUfrag[session.localUfrag] = nil
        if let address = session.destination?.address, sessionsByAddress[address] === session {
            sessionsByAddress[address] = nil
        }
        guard let room = session.hub else { return }
        session.hub = nil
        if let publisher = session as? PublisherSession, room.publisher === publisher {
            room.publisher = nil
            let duration = room.startedAt.map { (now - $0.mono).seconds } ?? 0
            logger.info("stream ended", metadata: ["room": "\(room.id)", "session": "\(session.id)", "reason": "\(reason.rawValue)",
                                                   "duration_s": "\(Int(duration))", "peak_viewers": "\(room.peakViewers)"])
            if room.startedAt != nil {
                lifecycleObserver?.streamEnded(StreamEnded(
                    room: room.id, sessionID: session.id, reason: reason, durationSeconds: duration,
                    bytesIn: room.bytesIn, bytesOut: room.bytesOut + (room.feed?.bytesOutElsewhere ?? 0),
                    peakViewers: max(room.peakViewers, room.feed?.peakViewers ?? 0),
                    at: environment.wallClock().timeIntervalSince1970))
            }
            room.startedAt = nil
            room.tap?.finish()
            room.tap = nil
            room.feed?.finish(reason)
            endedFeedsDropped &+= room.feed?.dropped ?? 0
            room.feed = nil
            room.stream = nil
            for viewer in room.viewers { end(viewer, reason: reason, now: now) }
        } else if let viewer = session as? ViewerSession {
            let wasConnected = viewer.connectedAt != nil
            room.viewers.removeAll { $0 === viewer }
            room.departedSwitchesUp += viewer.selector.upSwitches
            room.departedSwitchesDown += viewer.selector.downSwitches
            room.departedPausedTime = room.departedPausedTime + viewer.pausedTime
            room.departedPauses += viewer.selector.pauses
            logger.info("viewer left", metadata: ["room": "\(room.id)", "session": "\(session.id)"])
            if wasConnected && room.isLive { notifyViewers(room) }
        }
        if room.isEmpty {
            endedRoomsPaddedPackets += room.paddedPackets
            if rooms[room.id] === room { rooms[room.id] = nil }
            detachReplica(room)
        }
        sender.flush()
    }

    /// Reports the stream's connected viewers, on every worker together.
    package func notifyViewers(_ room: Room) {
        let here = room.viewers.filter { $0.connectedAt != nil }.count
        if let publisher = room.publisher {
            room.feed?.setOriginViewers(here)
            lifecycleObserver?.viewersChanged(room: room.id, sessionID: publisher.id, viewers: room.feed?.totalViewers ?? here)
        } else if let feed = room.upstream {
            feed.setViewers(here, consumer: settings.worker)
            lifecycleObserver?.viewersChanged(room: room.id, sessionID: feed.publisherID, viewers: feed.totalViewers)
        }
    }

    /// Ends the live stream of `room` on purpose; false when nothing is live there.
    package func kick(room: String, now: MonoTime) -> Bool {
        guard let publisher = rooms[room]?.publisher else { return false }
        end(publisher, reason: .kicked, now: now)
        return true
    }

    package static func endReason(_ reason: PeerCloseReason) -> StreamEndReason {
        switch reason {
        case .dtlsClosed: return .dtlsClosed
        case .dtlsFailed: return .dtlsFailed
        case .consentExpired, .connectTimeout: return .publisherTimeout
        case .local: return .publisherDeleted
        }
    }

    /// Ends every session, publishers first (their viewers end with them).
    package func shutdown(now: MonoTime) {
        let publishersFirst = sessions.values.sorted { ($0.kind == .publisher ? 0 : 1) < ($1.kind == .publisher ? 0 : 1) }
        for session in publishersFirst { end(session, reason: .relayShutdown, now: now) }
        sender.flush()
    }

    // MARK: snapshots

    /// Run-padded packets of every room, ended ones included.
    package var paddedPackets: UInt64 { endedRoomsPaddedPackets + rooms.values.reduce(0) { $0 + $1.paddedPackets } }

    /// Records this worker's publishers could not hand to other workers, ended streams included.
    package var feedDropped: UInt64 {
        rooms.values.reduce(endedFeedsDropped) { $0 &+ ($1.feed?.dropped ?? 0) }
    }

    /// SRTP and SRTCP packets that failed authentication or the replay check (RFC 3711 §3.3),
    /// of every session, ended ones included.
    package var srtpFailures: UInt64 {
        sessions.values.reduce(endedSessionsSRTPFailures) { $0 &+ $1.peer.srtpFailures }
    }
}
