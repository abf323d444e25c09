import OnAirRTP
import OnAirWire

/// A viewer's NACKs (RFC 4585 §6.2.1) answered from its worker's copy of the layer, within
/// its budget; what will not come is given up with a packet that closes the hole.
extension Room {
    /// Answers a viewer's NACK for video sequence numbers from its layer's cache, within its
    /// budget and at most once per round trip per packet, with the numbers the viewer first got.
    package func retransmit(viewerSequences: [UInt16], to viewer: ViewerSession, now: MonoTime, sender: any DatagramSink) {
        guard viewer.video != nil else { return }
        viewer.nacksReceived += UInt64(viewerSequences.count)
        viewer.estimator.nackLoss.nacked(viewerSequences)
        if viewer.selector.probe.active != nil {
            // Only loss of what went out since the probe started says anything about it: a
            // paused viewer's receiver goes on asking for the video its dip lost.
            var sinceProbe = 0
            for sequence in viewerSequences where viewer.probeBaseSequence.map({ Int16(bitPattern: sequence &- $0) > 0 }) ?? true {
                sinceProbe += 1
            }
            viewer.selector.probe.countNACKed(sinceProbe)
        }
        if !viewer.repeatsNACKs { viewer.history.noteNACK(viewerSequences) }
        for viewerSequence in viewerSequences {
            resend(viewerSequence, to: viewer, now: now, sender: sender)
        }
    }

    /// Resends what a viewer that does not repeat its NACKs may still miss (``RetransmissionHistory``).
    package func resendUnconfirmed(to viewer: ViewerSession, scratch: inout [UInt16], now: MonoTime, sender: any DatagramSink) {
        guard viewer.video != nil, !viewer.repeatsNACKs, viewer.history.outstandingCount > 0 else { return }
        scratch.removeAll(keepingCapacity: true)
        viewer.history.collectOverdue(interval: viewer.resendInterval + .milliseconds(20), now: now, into: &scratch)
        for sequence in scratch { resend(sequence, to: viewer, now: now, sender: sender) }
    }

    private func resend(_ viewerSequence: UInt16, to viewer: ViewerSession, now: MonoTime, sender: any DatagramSink) {
        // Paused, to resume afresh: the holes need no answer, and a link too thin for the
        // layer has no room for one.
        guard let stream, let track = viewer.video, !track.resumesAfresh,
              let output = ViewerOutput(viewer, sender: sender, now: now), !output.backlogged,
              let source = track.source(ofViewerSequence: viewerSequence),
              stream.videoLayers.indices.contains(source.layer) else { return }
        let layer = source.layer
        // A packet of a layer the viewer has left (it has the new layer's keyframe): not worth
        // the link it would take; the hole is filled.
        if source.layer != track.current {
            giveUp(viewerSequence, via: output)
            return
        }
        // Not cached: gone (the hole is filled), or not arrived yet (a repair from the
        // publisher may still bring it, and will reach the viewer like any packet).
        guard stream.videoLayers[layer].cache.contains(sequenceNumber: source.sequence) else {
            if stream.videoLayers[layer].hasEvicted(source.sequence) {
                giveUp(viewerSequence, via: output)
            }
            return
        }
        guard viewer.history.mayResend(viewerSequence, interval: viewer.resendInterval, now: now) else { return }
        guard viewer.retransmitBudget.take(now: now) else {
            giveUp(viewerSequence, via: output)
            return
        }
        stream.videoLayers[layer].cache.withPacket(sequenceNumber: source.sequence) { raw in
            guard let view = RTPPacketView(raw), view.payloadType == stream.videoPayloadType,
                  let timestamp = source.rewriter.viewerTimestamp(forPublisherTimestamp: view.timestamp) else { return }
            let sent = emit(OutgoingRTP(marker: view.marker, payloadType: track.payloadType, sequence: viewerSequence,
                                               timestamp: timestamp, ssrc: track.ssrc,
                                               payload: UnsafeRawBufferPointer(rebasing: raw[view.payloadRange])), via: output)
            if sent != nil {
                viewer.history.noteResent(viewerSequence, confirm: !viewer.repeatsNACKs, now: now)
                viewer.retransmissions += 1
                retransmissions += 1
            }
        }
    }

    /// RFC 6184 §5.6 single NAL unit packet of filler data (type 12, §7.3.2.7 of H.264):
    /// what fills a hole for a receiver that assembles frames by timestamp. An empty payload
    /// there becomes an empty frame, which aiortc hands to FFmpeg as end of stream, and its
    /// decoder never decodes again.
    static let fillerNALUnit: [UInt8] = [0x0C, 0xFF, 0x80]

    /// A packet the viewer asked for that will not come (gone from the cache, of a layer it
    /// left, or over its retransmission budget on a link that is losing packets because it
    /// is full), sent so the hole closes: with the timestamp and marker it had (else the
    /// newest), as filler data for receivers that assemble frames by timestamp, as RTP
    /// padding (RFC 3550 §5.1) for libwebrtc, which drops padding by sequence number. aiortc's
    /// jitter buffer holds every later frame until 512 packets have passed a hole (17 s on a
    /// 180p layer of one packet per frame).
    ///
    /// - Parameter frameTimestamp: the timestamp for a packet that was never sent (else the
    ///   newest sent).
    func giveUp(_ sequence: UInt16, via output: ViewerOutput, frameTimestamp: UInt32? = nil) {
        let viewer = output.viewer
        guard let track = viewer.video else { return }
        let sent = viewer.history.sent(sequence)
        let timestamp = sent?.timestamp ?? frameTimestamp ?? track.rewriter.lastTimestamps?.viewer ?? 0
        let emitted = Self.fillerNALUnit.withUnsafeBytes { filler in
            emit(OutgoingRTP(marker: sent?.marker ?? false, payloadType: track.payloadType, sequence: sequence,
                                    timestamp: timestamp, ssrc: track.ssrc,
                                    payload: viewer.repeatsNACKs ? UnsafeRawBufferPointer(start: nil, count: 0) : filler,
                                    padding: viewer.repeatsNACKs ? 4 : 0), via: output)
        }
        guard emitted != nil else { return }
        viewer.retransmissionsGivenUp &+= 1
        // Filled now: a later check of the viewer's holes must not fill it again (a packet that
        // far behind resets aiortc's jitter buffer).
        if sent == nil { viewer.history.recordSent(sequence: sequence, timestamp: timestamp, marker: false) }
    }
}
