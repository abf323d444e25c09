import Foundation
import OnAirPayload
import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// One room: its publisher, its viewers, and the forwarding between them. Confined to the
/// media event loop; the per-packet path takes no lock and allocates nothing.
package final class Room {
    package let id: String
    package var publisher: PublisherSession?
    /// What the viewers here are fed from: the publisher's ``PublisherSession/stream`` on its
    /// worker, a replica filled from ``upstream`` on any other.
    package var stream: StreamSource?
    /// Where the stream goes to viewers on other workers, once some have any (publisher's worker).
    package var feed: StreamFeed?
    /// The feed this worker's copy of the stream reads (a worker other than the publisher's).
    package var upstream: StreamFeed?
    package var viewers: [ViewerSession] = []
    package var peakViewers = 0
    /// Set when some layer needs a keyframe (``ReceivedLayer/keyframeWanted``); the engine
    /// sends the PLIs.
    package var needsKeyframe = false
    /// Where the current stream's media goes to be packaged for LL-HLS, when enabled.
    package var tap: MediaTapRing?
    package var startedAt: (mono: MonoTime, wall: Date)?

    package var packetsIn: UInt64 = 0
    package var bytesIn: UInt64 = 0
    package var packetsOut: UInt64 = 0
    package var bytesOut: UInt64 = 0
    package var retransmissions: UInt64 = 0
    /// ``bytesOut`` already added to the feed's total (a replica).
    package var reportedBytesOut: UInt64 = 0
    /// Layer switches and paused video time of viewers that left (a counter must not go down
    /// when one leaves); ``layerSwitches`` adds the viewers still here.
    package var departedSwitchesUp: UInt64 = 0
    package var departedSwitchesDown: UInt64 = 0
    package var departedPausedTime = PausedVideoTime()
    package var departedPauses: UInt64 = 0
    /// Packets sent with run padding (``Room/runPadding(payloadSize:after:)``).
    package var paddedPackets: UInt64 = 0

    /// Publisher packets of the current read batch not yet sent to viewers (``fanOutPending``).
    package var pendingPackets: [PendingPacket] = []
    /// Whether the engine has this room on its list to fan out at the end of the read batch.
    package var awaitingFanOut = false

    package init(id: String) {
        self.id = id
        pendingPackets.reserveCapacity(Self.maxPendingPackets)
    }

    package var isEmpty: Bool { publisher == nil && viewers.isEmpty }

    /// Whether viewers may join: its publisher is here and on, or it reads a stream not ended.
    package var isLive: Bool {
        if let publisher { return !publisher.ended }
        return upstream.map { $0.endReason == nil } ?? false
    }

    /// Connected viewers of the stream on other workers.
    package var viewersElsewhere: Int {
        guard let feed = feed ?? upstream else { return 0 }
        return max(0, feed.totalViewers - viewers.filter { $0.connectedAt != nil }.count)
    }

    /// Layer switches decided, up and down, pauses, and video time paused, of every viewer the
    /// room had.
    package var layerSwitches: (up: UInt64, down: UInt64, pauses: UInt64, paused: PausedVideoTime) {
        viewers.reduce((departedSwitchesUp, departedSwitchesDown, departedPauses, departedPausedTime)) {
            ($0.0 + $1.selector.upSwitches, $0.1 + $1.selector.downSwitches, $0.2 + $1.selector.pauses, $0.3 + $1.pausedTime)
        }
    }

    /// A monotonic time in RTP clock units, for jitter (RFC 3550 App. A.8 wants arrival times
    /// in the stream's timestamp units; only differences matter, so wrapping is fine).
    @inline(__always)
    package static func clockUnits(_ time: MonoTime, rate: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: time.nanoseconds / 1000 &* UInt64(rate) / 1_000_000)
    }

    /// A simulcast encoding's preference from its rid (RFC 8852 extension), learnt once per SSRC.
    package static func rank(of view: RTPPacketView, in raw: UnsafeRawBufferPointer, publisher: PublisherSession) -> Int {
        if let known = publisher.videoRanks[view.ssrc] { return known }
        guard let id = publisher.ridExtensionID, let range = view.extensionElement(id: id, in: raw) else { return .max }
        let rid = String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self)
        let rank = publisher.stream.videoRIDs.firstIndex(of: rid) ?? .max
        publisher.videoRanks[view.ssrc] = rank
        return rank
    }

    /// Forwards one decrypted publisher RTP packet to the viewers (at the end of the read
    /// batch, ``fanOutPending``). Every video layer is forwarded; each viewer takes its own
    /// (``send``). An RTX packet (RFC 4588) is forwarded as the original it carries.
    ///
    /// `raw` lies in the slot `slab` gave last; a packet queued for the fan-out keeps it.
    /// The caller leaves a second slot free for the original an RTX packet carries.
    package func forward(_ raw: UnsafeRawBufferPointer, view: RTPPacketView, from publisher: PublisherSession, now: MonoTime,
                         sender: any DatagramSink, slab: InboundPacketSlab, isRetransmission: Bool = false) {
        if let recovered = admit(raw, view: view, from: publisher, now: now, sender: sender, slab: slab,
                                 isRetransmission: isRetransmission) {
            forward(recovered.raw, view: recovered.view, from: publisher, now: now, sender: sender, slab: slab, isRetransmission: true)
        }
    }

    /// ``forward``'s work for one packet; returns the original an RTX packet carried.
    @inline(__always)
    private func admit(_ raw: UnsafeRawBufferPointer, view: RTPPacketView, from publisher: PublisherSession, now: MonoTime,
                       sender: any DatagramSink, slab: InboundPacketSlab, isRetransmission: Bool)
        -> (raw: UnsafeRawBufferPointer, view: RTPPacketView)? {
        // Every packet counts for transport-cc, bandwidth probes (RTX, padding) above all:
        // unreported probes would read as loss and keep the publisher's bitrate down.
        if !isRetransmission, let id = publisher.transportSequenceExtensionID,
           let range = view.extensionElement(id: id, in: raw), range.count == 2 {
            let sequence = UInt16(raw[range.lowerBound]) << 8 | UInt16(raw[range.lowerBound + 1])
            publisher.transportFeedback.record(sequence: sequence, arrivalMicroseconds: Int64(now.nanoseconds / 1000))
        }
        let isVideo = view.payloadType == publisher.stream.videoPayloadType
        guard isVideo || view.payloadType == publisher.stream.audioPayloadType else {
            if view.payloadType == publisher.repair?.rtxPayloadType {
                slab.keep()  // the RTX packet stays readable while its original is written
                guard let slot = slab.nextSlot() else { return nil }
                return Self.recoverOriginal(of: raw, view: view, from: publisher, into: slot)
            }
            return nil  // FEC or an unnegotiated payload type: not forwarded
        }
        packetsIn += 1
        bytesIn += UInt64(raw.count)
        publisher.packetsIn += 1
        publisher.bytesIn += UInt64(raw.count)
        let payload = UnsafeRawBufferPointer(rebasing: raw[view.payloadRange])
        guard !payload.isEmpty else { return nil }  // padding-only probe: nothing to forward
        if isVideo {
            guard let admitted = admitVideo(view, raw: raw, payload: payload, from: publisher, now: now,
                                            isRetransmission: isRetransmission) else { return nil }
            queueForFanOut(raw, view: view, isVideo: true, keyframe: admitted.keyframe, lead: admitted.lead, layer: admitted.layer,
                           slab: slab, sender: sender, now: now)
            feed?.packet(.video, raw: raw, view: view, layer: admitted.layer, rank: publisher.stream.videoLayers[admitted.layer].rank,
                         keyframe: admitted.keyframe, preamble: admitted.preamble, lead: admitted.lead,
                         retransmission: isRetransmission, switched: false, now: now)
            if let tap {
                tap.video(layer: admitted.layer, rid: publisher.stream.videoLayers[admitted.layer].rid, isPrimary: admitted.primary,
                                 sequence: view.sequence, timestamp: view.timestamp, marker: view.marker, payload: payload, now: now)
            }
        } else {
            let switched: Bool
            switch publisher.audioSource.accept(view.ssrc, now: now) {
            case .ignore: return nil
            case .switched:
                publisher.audioStats = nil
                for viewer in viewers { viewer.audio?.rebase(timestampStep: 960) }
                switched = true
            case .forward: switched = false
            }
            publisher.stream.audioSSRC = view.ssrc
            publisher.stream.audioBytes &+= UInt64(raw.count)
            if publisher.audioStats == nil { publisher.audioStats = RTPStreamStatistics(ssrc: view.ssrc) }
            publisher.audioStats?.record(sequenceNumber: view.sequence, rtpTimestamp: view.timestamp,
                                         arrivalTime: Self.clockUnits(now, rate: publisher.stream.audioClockRate))
            queueForFanOut(raw, view: view, isVideo: false, keyframe: false, lead: 0, layer: -1, slab: slab, sender: sender, now: now)
            feed?.packet(.audio, raw: raw, view: view, layer: -1, rank: -1, keyframe: false, preamble: false, lead: 0,
                         retransmission: isRetransmission, switched: switched, now: now)
            tap?.audio(sequence: view.sequence, timestamp: view.timestamp, marker: view.marker, payload: payload, now: now)
        }
        if let tap, tap.takeKeyframeRequest() {
            // Every layer at once: the renditions' segments start at the same IDR times.
            for layer in publisher.stream.videoLayers.indices { wantKeyframe(layer: layer) }
        }
        if let feed { takeKeyframeRequests(from: feed) }
        return nil
    }

    /// Asks for a keyframe of one layer; the engine sends the PLI after the packet (coalesced,
    /// on the publisher's worker). `prompt`: a viewer is waiting to start on this layer (it
    /// joined, or switches to it).
    package func wantKeyframe(layer: Int, prompt: Bool = false) {
        guard let stream, stream.videoLayers.indices.contains(layer) else { return }
        stream.videoLayers[layer].keyframeWanted = true
        if prompt { stream.videoLayers[layer].keyframePrompt = true }
        needsKeyframe = true
    }

    /// Keyframes other workers' viewers want, coalesced with this worker's own.
    @inline(__always)
    package func takeKeyframeRequests(from feed: StreamFeed) {
        guard let requests = feed.takeKeyframeRequests(), let stream else { return }
        for layer in stream.videoLayers.indices where requests.wanted & (1 << layer) != 0 {
            wantKeyframe(layer: layer, prompt: requests.prompt & (1 << layer) != 0)
        }
    }
}
