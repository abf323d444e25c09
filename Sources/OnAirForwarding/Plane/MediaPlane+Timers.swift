import Foundation
import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// The plane's 20 ms timer: what happens between datagrams.
extension MediaPlane {
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
}
