import OnAirRTP
import OnAirWire

/// The way in: RTX packets turned back into the packets they repair (RFC 4588 §4), so that
/// a repair is forwarded and cached like the original would have been.
extension Room {
    /// The original packet carried by an RTX packet of one of the video layers, or nil (a
    /// padding-only probe, a repair of an unknown source, a malformed packet).
    package static func recoverOriginal(of raw: UnsafeRawBufferPointer, view: RTPPacketView, from publisher: PublisherSession,
                                        into output: UnsafeMutableRawBufferPointer) -> (raw: UnsafeRawBufferPointer, view: RTPPacketView)? {
        guard publisher.repair != nil, let payloadType = publisher.stream.videoPayloadType else { return nil }
        publisher.repair?.rtxPackets &+= 1
        guard view.payloadRange.count >= 2,
              let media = mediaSource(ofRTX: view.ssrc, in: raw, view: view, publisher: publisher),
              publisher.stream.videoLayer(ssrc: media) != nil,
              let original = try? RTX.unwrap(raw, view: view, originalSSRC: media, originalPayloadType: payloadType, into: output)
        else { return nil }
        return (UnsafeRawBufferPointer(rebasing: output[..<original.payloadRange.upperBound]), original)
    }

    /// RFC 4588 §8.3: the FID group, else the repaired rid (RFC 8852 §3.2), else, for a
    /// publisher with one video source, that source. Learnt once per RTX SSRC.
    private static func mediaSource(ofRTX ssrc: UInt32, in raw: UnsafeRawBufferPointer, view: RTPPacketView,
                                    publisher: PublisherSession) -> UInt32? {
        guard let repair = publisher.repair else { return nil }
        if let known = repair.rtxSources[ssrc] { return known }
        let media: UInt32?
        if let id = repair.repairedRIDExtensionID {
            guard let range = view.extensionElement(id: id, in: raw) else { return nil }
            let rid = String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self)
            guard let rank = publisher.stream.videoRIDs.firstIndex(of: rid) else { return nil }
            media = publisher.videoRanks.first { $0.value == rank }?.key
        } else {
            media = publisher.videoSSRC
        }
        if let media { publisher.repair?.rtxSources[ssrc] = media }
        return media
    }

    /// Tells the viewers of `layer` that these of its packets will never come: each gets a
    /// padding-only packet (RFC 3550 §5.1) with the missing sequence number and its frame's
    /// timestamp. A receiver whose jitter buffer waits for every sequence number (aiortc's
    /// holds frames until 512 packets have passed: seconds on a thin stream) moves on to
    /// the keyframe asked for at the same time; libwebrtc takes padding as no media at all.
    /// Viewer by viewer, so that one viewer's announcements (all of one size) leave as one
    /// GSO send: a relay that lost packets because it fell behind must not pay more per
    /// packet for saying so than for forwarding.
    ///
    /// - Parameter timestamps: scratch space for the frames' timestamps.
    package func announceLoss(_ sequences: [UInt16], layer: Int, timestamps: inout [UInt32], sender: any DatagramSink, now: MonoTime) {
        guard let stream, stream.videoLayers.indices.contains(layer) else { return }
        timestamps.removeAll(keepingCapacity: true)
        for sequence in sequences {
            timestamps.append(nearestTimestamp(to: sequence, layer: layer, of: stream) ?? stream.videoLayers[layer].newestTimestamp)
        }
        for viewer in viewers {
            guard let output = ViewerOutput(viewer, sender: sender, now: now), viewer.video?.current == layer,
                  let payloadType = viewer.video?.payloadType, let ssrc = viewer.video?.ssrc else { continue }
            for index in sequences.indices {
                guard let numbers = viewer.video?.map(layer: layer, sequence: sequences[index], timestamp: timestamps[index],
                                                      startsKeyframe: false, now: now, clock: { _ in nil }) else { continue }
                let sent = emit(OutgoingRTP(marker: false, payloadType: payloadType, sequence: numbers.sequence,
                                                   timestamp: numbers.timestamp, ssrc: ssrc,
                                                   payload: UnsafeRawBufferPointer(start: nil, count: 0), padding: 4), via: output)
                guard sent != nil else { continue }
                publisher?.repair?.lossAnnouncements &+= 1
                viewer.history.recordSent(sequence: numbers.sequence, timestamp: numbers.timestamp, marker: false)
            }
        }
    }

    /// The RTP timestamp of the cached packet of `layer` nearest before `sequence` (its frame,
    /// or the one before it), else the nearest after it. Loss comes in bursts (a full queue
    /// drops everything for a while), so the next packets may be missing too.
    private func nearestTimestamp(to sequence: UInt16, layer: Int, of stream: StreamSource) -> UInt32? {
        for distance in 1...UInt16(64) {
            if let found = stream.videoLayers[layer].cache.withPacket(sequenceNumber: sequence &- distance, { RTPPacketView($0)?.timestamp }) ?? nil {
                return found
            }
        }
        for distance in 1...UInt16(64) {
            if let found = stream.videoLayers[layer].cache.withPacket(sequenceNumber: sequence &+ distance, { RTPPacketView($0)?.timestamp }) ?? nil {
                return found
            }
        }
        return nil
    }

    /// Loss that no NACK can repair any more: a keyframe of that layer is the only way on.
    package func lossNeedsKeyframe(_ publisher: PublisherSession, layer: Int) {
        publisher.repair?.keyframeRequests &+= 1
        wantKeyframe(layer: layer)
    }
}
