import OnAirRTP
import OnAirWire

/// Streams that cross workers: the publisher's worker writes what its room admits into a
/// ``StreamFeed``; a worker with viewers of that stream keeps a replica room whose
/// ``StreamSource`` it fills from the feed, and fans out to its own viewers from the feed's
/// slots. Keyframe requests go back through the feed; the stream's end comes through it.
extension MediaPlane {
    /// The feed of `room`'s stream for viewers on other workers, made on the first call; nil
    /// when no publisher is live here.
    package func feed(room id: String) -> StreamFeed? {
        guard let room = rooms[id], let publisher = room.publisher, !publisher.ended else { return nil }
        if room.feed == nil {
            let feed = StreamFeed(room: id, publisherID: publisher.id, negotiated: publisher.negotiated,
                                  wakeups: feedWakeups)
            feed.setOriginViewers(room.viewers.count { $0.connectedAt != nil })
            feed.setLayerRates(publisher.stream.videoLayers)
            room.feed = feed
        }
        return room.feed
    }

    /// Reads `feed` from now on, into this worker's replica of its room, which viewers can be
    /// created in. A replica of an earlier stream of the room is ended first.
    package func attachReplica(_ feed: StreamFeed, now: MonoTime) throws(EngineError) {
        if let existing = rooms[feed.room] {
            if existing.upstream === feed { return }
            if existing.publisher != nil { throw .roomBusy("room \(feed.room) has its publisher on this worker") }
            if existing.upstream != nil { drain(existing, now: now) }
            guard rooms[feed.room] == nil else { throw .notLive("room \(feed.room)'s previous stream is still ending; retry") }
        }
        guard feed.endReason == nil else { throw .notLive("room \(feed.room) is not live; retry later") }
        let room = Room(id: feed.room)
        room.stream = StreamSource(negotiated: feed.negotiated, cacheSize: settings.retransmitCacheSize)
        room.upstream = feed
        feed.attach(consumer: settings.worker)
        rooms[feed.room] = room
        replicas.append(room)
    }

    /// Takes what every feed this worker reads has published (on a doorbell, each read batch
    /// and each tick).
    package func drainFeeds(now: MonoTime) {
        guard !replicas.isEmpty else { return }
        for room in replicas where room.upstream != nil { drain(room, now: now) }
        replicas.removeAll { $0.upstream == nil }
    }

    /// Records at most this many at a time before they are fanned out and handed back.
    static let feedBatch = 256

    private func drain(_ room: Room, now: MonoTime) {
        guard let feed = room.upstream else { return }
        let worker = settings.worker
        while true {
            let unread = feed.unread(consumer: worker, limit: Self.feedBatch)
            if unread.isEmpty {
                if let reason = feed.endReason, feed.isDrained(consumer: worker) {
                    endReplica(room, reason: reason, now: now)
                    return
                }
                // The producer rings once this sleeps; an end that came meanwhile is seen next.
                if feed.sleep(consumer: worker), feed.endReason == nil { break }
                continue
            }
            for index in unread { replicate(feed.record(at: index), into: room, now: now) }
            room.fanOutPending(sender: sender, now: now)
            feed.release(consumer: worker, through: unread.upperBound)
        }
        feed.addBytesOut(room.bytesOut &- room.reportedBytesOut)
        room.reportedBytesOut = room.bytesOut
        if room.needsKeyframe { requestKeyframes(room, now: now) }
    }

    private func replicate(_ record: FeedRecord, into room: Room, now: MonoTime) {
        switch record.kind {
        case .video:
            room.replicateVideo(record, sender: sender, now: now)
        case .audio:
            room.replicateAudio(record, sender: sender, now: now)
        case .senderReport:
            guard let stream = room.stream else { return }
            let report = SenderReport(ssrc: record.ssrc, ntpTime: NTPTime(rawValue: record.time), rtpTimestamp: record.timestamp,
                                      packetCount: 0, octetCount: 0)
            stream.senderReports[report.ssrc] = (report, now)
            let layer = record.layer >= 0 ? stream.videoLayer(ssrc: report.ssrc) : nil
            if let layer {
                stream.videoLayers[layer].clock = SenderClock(ntpTime: report.ntpTime, rtpTimestamp: report.rtpTimestamp,
                                                              clockRate: stream.videoClockRate)
            }
            if layer != nil || record.layer < 0 { forwardSenderReport(report, layer: layer, in: room, now: now) }
        case .loss:
            dueRepairs.removeAll(keepingCapacity: true)
            dueRepairs.append(record.sequence)
            room.announceLoss(dueRepairs, layer: record.layer, timestamps: &lossTimestamps, sender: sender, now: now)
        case nil:
            break
        }
    }

    /// The stream a replica reads ended: its viewers end with the same reason (the room goes
    /// with its last viewer).
    private func endReplica(_ room: Room, reason: StreamEndReason, now: MonoTime) {
        room.fanOutPending(sender: sender, now: now)
        for viewer in room.viewers { end(viewer, reason: reason, now: now) }
        if let feed = room.upstream {
            feed.detach(consumer: settings.worker)
            room.upstream = nil
            if rooms[room.id] === room { rooms[room.id] = nil }
        }
    }

    /// Replica rooms without a viewer (one whose viewer's offer was refused after the room
    /// was joined: both happen in one turn of the loop, so a tick never sees it between).
    package func pruneReplicas() {
        for room in replicas where room.viewers.isEmpty && room.upstream != nil {
            detachReplica(room)
            if rooms[room.id] === room { rooms[room.id] = nil }
        }
        replicas.removeAll { $0.upstream == nil }
    }

    /// A replica room lost its last viewer: it stops reading (the producer stops waiting for it).
    package func detachReplica(_ room: Room) {
        guard let feed = room.upstream else { return }
        feed.detach(consumer: settings.worker)
        room.upstream = nil
    }
}
