import OnAirPayload
import OnAirRTP
import OnAirWire

/// A replica room's way in: the records of the publisher's worker (``StreamFeed``) fill this
/// worker's ``StreamSource`` (counts, sizes, its NACK cache) and go to the fan-out straight
/// from the feed's slot, which stays unwritten until the fan-out is done.
extension Room {
    @inline(__always)
    func replicateVideo(_ record: FeedRecord, sender: any DatagramSink, now: MonoTime) {
        guard let stream, let upstream else { return }
        let raw = record.packet
        let view = record.view
        guard let layer = stream.replicaLayer(index: record.layer, ssrc: view.ssrc, rank: record.rank, feed: upstream) else { return }
        let role: H264Keyframe.Role = record.isKeyframe ? .idrStart : record.isPreamble ? .preamble : .other
        if !record.isRetransmission {
            stream.videoLayers[layer].count(size: raw.count, marker: view.marker,
                                            payload: UnsafeRawBufferPointer(rebasing: raw[view.payloadRange]), role: role, now: now)
        }
        if record.isKeyframe { _ = stream.videoLayers[layer].keyframeStarted(timestamp: view.timestamp) }
        stream.videoLayers[layer].noteNewest(sequence: view.sequence, timestamp: view.timestamp)
        _ = stream.videoLayers[layer].cache.store(raw, sequenceNumber: view.sequence)
        packetsIn += 1
        bytesIn += UInt64(raw.count)
        queueForFanOut(raw, view: view, isVideo: true, keyframe: record.isKeyframe, lead: record.lead, layer: layer, slab: nil,
                       sender: sender, now: now)
    }

    @inline(__always)
    func replicateAudio(_ record: FeedRecord, sender: any DatagramSink, now: MonoTime) {
        guard let stream else { return }
        let raw = record.packet
        let view = record.view
        if record.audioSwitched {
            for viewer in viewers { viewer.audio?.rebase(timestampStep: 960) }
        }
        stream.audioSSRC = view.ssrc
        stream.audioBytes &+= UInt64(raw.count)
        packetsIn += 1
        bytesIn += UInt64(raw.count)
        queueForFanOut(raw, view: view, isVideo: false, keyframe: false, lead: 0, layer: -1, slab: nil, sender: sender, now: now)
    }
}
