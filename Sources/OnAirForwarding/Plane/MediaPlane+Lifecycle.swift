import Foundation
import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// Sessions connecting and ending, streams starting and ending, and who is told.
extension MediaPlane {
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
        for address in session.streamTransports { sender.releaseTransport(address) }
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
            if rooms[room.id] === room {
                rooms[room.id] = nil
                roomClosed?(room.id)
            }
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
}
