import OnAirPayload
import OnAirRTP
import OnAirWire

/// The way in for video: each publisher SSRC is a layer (``ReceivedLayer``) with its own
/// repair, statistics and cache, whether or not any viewer takes it now.
extension Room {
    /// Takes one video packet into its layer. Returns the layer, whether it starts a keyframe
    /// (``H264Keyframe``: its IDR's first packet) and how many preamble packets right before it
    /// belong to that keyframe, and whether it belongs to the primary layer (the one HLS
    /// packages); or nil when it is not forwarded (an SSRC past the layer limit, a second
    /// source of a publisher without simulcast, a retransmission of what arrived already).
    @inline(__always)
    package func admitVideo(_ view: RTPPacketView, raw: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer,
                    from publisher: PublisherSession, now: MonoTime, isRetransmission: Bool)
        -> (layer: Int, keyframe: Bool, preamble: Bool, lead: UInt16, primary: Bool)?
    {
        let role = H264Keyframe.role(of: payload)
        let keyframe = role == .idrStart
        let rank = Self.rank(of: view, in: raw, publisher: publisher)
        let known = publisher.stream.videoLayer(ssrc: view.ssrc)
        let decision = publisher.videoSource.accept(view.ssrc, rank: publisher.videoPreference(layer: known, ridRank: rank),
                                                    now: now)
        // Without simulcast a publisher has one video source at a time (a new SSRC takes
        // over when the old one falls silent: an encoder restart).
        if decision == .ignore && publisher.stream.videoRIDs.isEmpty { return nil }
        guard let layer = known ?? publisher.stream.videoLayerIndex(ssrc: view.ssrc, rank: rank) else { return nil }
        if !isRetransmission {
            publisher.stream.videoLayers[layer].count(size: raw.count, marker: view.marker, payload: payload, role: role, now: now)
        }
        let lead = isRetransmission ? 0 : publisher.stream.videoLayers[layer].keyframeLead(role: role, sequence: view.sequence,
                                                                                    timestamp: view.timestamp)
        if publisher.repair != nil {
            let arrival = publisher.stream.videoLayers[layer].gaps.received(view.sequence, now: now)
            if arrival.unrepairable { lossNeedsKeyframe(publisher, layer: layer) }
            // A retransmission of what arrived already (a NACK crossed the original) is noise.
            if isRetransmission && arrival.arrival == .duplicate { return nil }
            if arrival.arrival == .repaired {
                // Counts as received, but its arrival time says nothing about jitter.
                publisher.stream.videoLayers[layer].statistics.recordRetransmission(sequenceNumber: view.sequence)
            } else {
                recordArrival(view, layer: layer, of: publisher, now: now)
            }
        } else {
            recordArrival(view, layer: layer, of: publisher, now: now)
        }
        // Loss before a keyframe is still repaired: a viewer whose jitter buffer waits for
        // every sequence number (aiortc's) stalls on a hole a keyframe does not close.
        if keyframe { _ = publisher.stream.videoLayers[layer].keyframeStarted(timestamp: view.timestamp) }
        _ = publisher.stream.videoLayers[layer].cache.store(raw, sequenceNumber: view.sequence)
        return (layer, keyframe, role != .other, lead, decision != .ignore)
    }

    @inline(__always)
    private func recordArrival(_ view: RTPPacketView, layer: Int, of publisher: PublisherSession, now: MonoTime) {
        if publisher.stream.videoLayers[layer].statistics.record(sequenceNumber: view.sequence, rtpTimestamp: view.timestamp,
                                                          arrivalTime: Self.clockUnits(now, rate: publisher.stream.videoClockRate)) {
            publisher.stream.videoLayers[layer].newestTimestamp = view.timestamp
            publisher.stream.videoLayers[layer].newestSequence = view.sequence
        }
    }
}
