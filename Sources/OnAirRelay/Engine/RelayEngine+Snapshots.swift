import Foundation
import OnAirWire

/// The read side of the engine for `GET /api/streams` and `/metrics`.
extension RelayEngine {
    func snapshots() -> [StreamSnapshot] {
        rooms.keys.sorted().compactMap { snapshot(room: $0) }
    }

    func snapshot(room id: String) -> StreamSnapshot? {
        guard let room = rooms[id] else { return nil }
        let now = MonoTime.now()
        let publisher = room.publisher
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
        return StreamSnapshot(
            room: id,
            live: publisher?.connectedAt != nil,
            publisher: publisher.map {
                .init(sessionID: $0.id, state: $0.peer.state.rawValue, address: $0.destination?.address.description)
            },
            viewers: room.viewers.filter { $0.connectedAt != nil }.count,
            peakViewers: room.peakViewers,
            codecs: codecs,
            packetsIn: room.packetsIn, bytesIn: room.bytesIn,
            packetsOut: room.packetsOut, bytesOut: room.bytesOut,
            keyframes: publisher?.keyframes ?? 0,
            keyframeRequests: room.keyframeRequests.sent,
            retransmissions: room.retransmissions,
            packetsLost: lost,
            lossFraction: publisher?.lastLossFraction ?? 0,
            jitterMs: video.map { Double($0.jitter) / 90.0 },
            viewerRTTMs: rtts.isEmpty ? nil : rtts.reduce(0, +) / Double(rtts.count) * 1000,
            startedAt: room.startedAt.map { formatter.string(from: $0.wall) },
            durationSeconds: room.startedAt.map { (now - $0.mono).seconds },
            upstreamRepair: publisher?.repair.map { repair in
                .init(nacksSent: repair.nackPackets, packetsRequested: repair.requested, packetsRepaired: repair.repaired,
                      packetsUnrepaired: repair.unrepaired, keyframeRequests: repair.keyframeRequests,
                      rtxPackets: repair.rtxPackets, roundTripMs: repair.generator.roundTrip.seconds * 1000,
                      lossAnnouncements: repair.lossAnnouncements)
            },
            layers: publisher.map { publisher in
                publisher.videoLayers.map { layer in
                    .init(rid: layer.rid, ssrc: layer.ssrc, width: layer.width, height: layer.height,
                          bitrateKbps: (layer.bitrate / 100).rounded() / 10, framesPerSecond: (layer.framesPerSecond * 10).rounded() / 10,
                          forwarded: layer.ssrc == publisher.videoSSRC, active: now - layer.lastPacketAt < .seconds(1))
                }
            } ?? [])
    }
}
