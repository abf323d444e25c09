extension StreamSnapshot {
    /// This room with the viewers another worker has of it added (a replica's snapshot:
    /// ``MediaPlane/snapshot(room:now:)``): viewer counts, what was sent, layer switches and
    /// pauses, and each viewer. The publisher's figures stay this one's.
    package func merging(_ other: StreamSnapshot) -> StreamSnapshot {
        var merged = publisher == nil && other.publisher != nil ? other : self
        let added = publisher == nil && other.publisher != nil ? self : other
        merged.viewers += added.viewers
        merged.peakViewers = max(merged.peakViewers, merged.viewers)
        merged.packetsOut += added.packetsOut
        merged.bytesOut += added.bytesOut
        merged.retransmissions += added.retransmissions
        for index in merged.layers.indices {
            guard let layer = added.layers.first(where: { $0.ssrc == merged.layers[index].ssrc }) else { continue }
            merged.layers[index].viewers += layer.viewers
            merged.layers[index].forwarded = merged.layers[index].viewers > 0
        }
        merged.layerSwitchesUp += added.layerSwitchesUp
        merged.layerSwitchesDown += added.layerSwitchesDown
        merged.videoPauses += added.videoPauses
        merged.videoPausedSeconds += added.videoPausedSeconds
        merged.videoPausedSecondsByReason.merge(added.videoPausedSecondsByReason, uniquingKeysWith: +)
        merged.viewerSessions += added.viewerSessions
        let rtts = merged.viewerSessions.compactMap(\.rttMs)
        merged.viewerRTTMs = rtts.isEmpty ? nil : rtts.reduce(0, +) / Double(rtts.count)
        return merged
    }
}
