import Foundation
import OnAirWire

/// The read side of the engine for `GET /api/streams` and `/metrics`.
extension MediaPlane {
    package func snapshots(now: MonoTime) -> [StreamSnapshot] {
        rooms.keys.sorted().compactMap { snapshot(room: $0, now: now) }
    }

    package func viewerSnapshot(_ viewer: ViewerSession, stream: StreamSource?) -> StreamSnapshot.ViewerSnapshot {
        func layer(_ index: Int?) -> ReceivedLayer? {
            guard let index, let stream, stream.videoLayers.indices.contains(index) else { return nil }
            return stream.videoLayers[index]
        }
        let current = layer(viewer.video?.current)
        let target = layer(viewer.selector.target)
        return .init(sessionID: String(viewer.id.prefix(8)), layer: current.map { $0.rid ?? String($0.ssrc) },
                     width: current?.width, height: current?.height,
                     targetLayer: target.map { $0.rid ?? String($0.ssrc) }, paused: viewer.video != nil && target == nil,
                     maxHeight: viewer.selector.maximumHeight,
                     estimateKbps: Double(viewer.estimator.estimate / 100) / 10, feedback: viewer.estimator.feedback.rawValue,
                     estimateReason: viewer.estimator.lastChangeReason.description,
                     lossFraction: viewer.estimator.lossFraction, rttMs: viewer.roundTripTime.map { $0 * 1000 },
                     switchesUp: viewer.selector.upSwitches, switchesDown: viewer.selector.downSwitches,
                     probesSucceeded: viewer.selector.probe.succeeded, probesFailed: viewer.selector.probe.failed,
                     paddingBytes: viewer.paddingBytes, pausedSeconds: viewer.pausedTime.total.seconds,
                     pauses: viewer.selector.pauses, pauseReason: viewer.selector.pauseReason?.rawValue,
                     bytesOut: viewer.bytesOut, retransmissions: viewer.retransmissions,
                     retransmissionsGivenUp: viewer.retransmissionsGivenUp, nacksReceived: viewer.nacksReceived,
                     worker: settings.worker, transport: viewer.destination.map { $0.address.transport == .tcp ? "tcp" : "udp" },
                     addressFamily: viewer.destination.map { $0.address.isIPv4 ? "ipv4" : "ipv6" },
                     transportRestarts: viewer.transportRestarts)
    }

    /// The room as this worker sees it: a replica (its stream published on another worker)
    /// has no publisher and counts only its own viewers (``StreamSnapshot/merging(_:)`` adds them up).
    package func snapshot(room id: String, now: MonoTime) -> StreamSnapshot? {
        guard let room = rooms[id] else { return nil }
        let publisher = room.publisher
        let stream = room.stream
        let video = publisher?.videoStats
        let rtts = room.viewers.compactMap(\.roundTripTime)
        let codecs = publisher?.negotiated.media.map { media -> String in
            var name = "\(media.kind)/\(media.codec.name)/\(media.codec.clockRate)"
            if let channels = media.codec.channels { name += "/\(channels)" }
            if let plid = media.codec.fmtp.first(where: { $0.name == "profile-level-id" })?.value {
                name += " profile-level-id=\(plid)"
            }
            return name
        } ?? []
        let lost = (publisher?.videoStats?.cumulativeLost ?? 0) + (publisher?.audioStats?.cumulativeLost ?? 0)
        let formatter = ISO8601DateFormatter()
        let switches = room.layerSwitches
        return StreamSnapshot(
            room: id,
            live: publisher?.connectedAt != nil,
            publisher: publisher.map {
                .init(sessionID: String($0.id.prefix(8)), state: $0.peer.state.rawValue, address: $0.destination?.address.description)
            },
            viewers: room.viewers.filter { $0.connectedAt != nil }.count,
            peakViewers: max(room.peakViewers, room.feed?.peakViewers ?? 0),
            codecs: codecs,
            packetsIn: room.packetsIn, bytesIn: room.bytesIn,
            packetsOut: room.packetsOut, bytesOut: room.bytesOut,
            keyframes: publisher?.stream.keyframes ?? 0,
            keyframeRequests: publisher?.stream.videoLayers.reduce(0) { $0 + $1.keyframeRequests.sent } ?? 0,
            retransmissions: room.retransmissions,
            packetsLost: lost,
            lossFraction: publisher?.lastLossFraction ?? 0,
            jitterMs: video.map { Double($0.jitter) / 90.0 },
            viewerRTTMs: rtts.isEmpty ? nil : rtts.reduce(0, +) / Double(rtts.count) * 1000,
            startedAt: room.startedAt.map { formatter.string(from: $0.wall) },
            durationSeconds: room.startedAt.map { (now - $0.mono).seconds },
            upstreamRepair: publisher.flatMap { publisher in
                publisher.repair.map { repair in
                    let layers = publisher.stream.videoLayers
                    return .init(nacksSent: repair.nackPackets, packetsRequested: layers.reduce(0) { $0 + $1.gaps.requested },
                                 packetsRepaired: layers.reduce(0) { $0 + $1.gaps.repaired },
                                 packetsUnrepaired: layers.reduce(0) { $0 + $1.gaps.unrepaired },
                                 keyframeRequests: repair.keyframeRequests, rtxPackets: repair.rtxPackets,
                                 roundTripMs: (publisher.primaryLayer.map { layers[$0].gaps.roundTrip.seconds } ?? 0) * 1000,
                                 lossAnnouncements: repair.lossAnnouncements)
                }
            },
            layers: stream.map { stream in
                stream.videoLayers.enumerated().map { index, layer in
                    let viewers = room.viewers.filter { $0.video?.current == index }.count
                    return .init(rid: layer.rid, ssrc: layer.ssrc, width: layer.width, height: layer.height,
                          bitrateKbps: (layer.bitrate / 100).rounded() / 10, framesPerSecond: (layer.framesPerSecond * 10).rounded() / 10,
                          forwarded: viewers > 0, viewers: viewers,
                          primary: index == publisher?.primaryLayer, active: layer.isLive(now: now))
                }
            } ?? [],
            layerSwitchesUp: switches.up, layerSwitchesDown: switches.down, videoPauses: switches.pauses,
            videoPausedSeconds: switches.paused.total.seconds,
            videoPausedSecondsByReason: Dictionary(uniqueKeysWithValues: PauseGate.Reason.allCases.map {
                ($0.rawValue, switches.paused[$0].seconds)
            }),
            viewerSessions: room.viewers.filter { $0.connectedAt != nil }.map { viewer in
                viewerSnapshot(viewer, stream: stream)
            })
    }

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
