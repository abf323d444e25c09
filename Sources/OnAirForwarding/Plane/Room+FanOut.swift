import OnAirRTP
import OnAirWire

/// Fan-out by read batch: the publisher packets that arrive in one read batch are sent to
/// each viewer back to back, viewer by viewer, so that ``BatchedDatagramSender`` can hand a
/// viewer's whole share to the kernel as one UDP GSO send. Per packet and viewer, what
/// remains is the rewrite, the SRTP protect and a copy; the kernel's per-send cost (routing,
/// socket buffer accounting, skb set-up) is paid once per viewer and batch.
///
/// A GSO send carries datagrams of one size (the last may be shorter), but packetizers such
/// as libwebrtc's and aiortc's split a frame into FU-A fragments of *about* equal size, one
/// byte apart. So a video packet a few bytes shorter than the one before it gets RTP padding
/// (RFC 3550 §5.1: P bit, padding octets, the last one counting them) up to that size; the
/// viewer's stack strips it, its payload is unchanged, and the frame stays one run.
extension Room {
    /// One decrypted publisher packet waiting for the end of its read batch.
    package struct PendingPacket {
        /// In a slot of the plane's ``InboundPacketSlab``, valid until the fan-out.
        let packet: UnsafeRawBufferPointer
        let view: RTPPacketView
        let isVideo: Bool
        let keyframe: Bool
        /// For a keyframe: how many packets right before it are its preamble (SPS, PPS), which
        /// a viewer starting at it gets first, from the layer's cache.
        let lead: UInt16
        /// The publisher's video layer (``PublisherSession/videoLayers``); -1 for audio.
        let layer: Int
        /// RTP padding octets to add so that it is as long as the packet before it.
        let padding: Int
    }

    /// Padding beyond this many octets is not worth it: such a packet ends its run.
    package static let maxRunPadding = 8

    /// Enough for a 2.5 Mbit/s keyframe's worth of packets; bounds the latency a batch adds
    /// (the last viewer of a batch waits for all copies before it).
    package static let maxPendingPackets = 32

    /// Queues a packet that lies in the slot `slab` gave last, and keeps that slot.
    package func queueForFanOut(_ packet: UnsafeRawBufferPointer, view: RTPPacketView, isVideo: Bool, keyframe: Bool, lead: UInt16,
                                layer: Int, slab: InboundPacketSlab?, sender: any DatagramSink, now: MonoTime) {
        slab?.keep()
        pendingPackets.append(PendingPacket(packet: packet, view: view, isVideo: isVideo, keyframe: keyframe, lead: lead, layer: layer,
                                            padding: isVideo ? Self.runPadding(payloadSize: view.payloadRange.count,
                                                                               after: pendingPackets.last) : 0))
        if pendingPackets.count >= Self.maxPendingPackets { fanOutPending(sender: sender, now: now) }
    }

    /// The padding that makes a video payload of `payloadSize` octets as long as the padded
    /// payload of the video packet before it, when that is at most ``maxRunPadding`` longer.
    package static func runPadding(payloadSize: Int, after previous: PendingPacket?) -> Int {
        guard let previous, previous.isVideo else { return 0 }
        let runSize = previous.view.payloadRange.count + previous.padding
        let padding = runSize - payloadSize
        return padding > 0 && padding <= maxRunPadding ? padding : 0
    }

    /// Sends every pending packet to every connected viewer, each viewer's packets in a row.
    package func fanOutPending(sender: any DatagramSink, now: MonoTime) {
        guard !pendingPackets.isEmpty, let stream else {
            pendingPackets.removeAll(keepingCapacity: true)
            return
        }
        pendingPackets.withUnsafeBufferPointer { pending in
            for viewer in viewers {
                guard let output = ViewerOutput(viewer, sender: sender, now: now) else { continue }
                if viewer.awaitsTransportRoom && !output.backlogged { transportHasRoom(for: viewer) }
                for index in pending.indices {
                    let item = pending[index]
                    if item.lead > 0, viewer.video?.startsAt(layer: item.layer) == true {
                        sendPreamble(of: item, via: output, from: stream)
                    }
                    send(item, via: output, from: stream)
                }
            }
        }
        pendingPackets.removeAll(keepingCapacity: true)
    }

    /// A viewer starts (or switches) at this keyframe: first the preamble packets that came
    /// before its IDR (the SPS and PPS it decodes with), from the layer's cache. The first of
    /// them starts the viewer's rewriter, so its numbers run on from there without a gap.
    private func sendPreamble(of keyframe: PendingPacket, via output: ViewerOutput, from stream: StreamSource) {
        guard stream.videoLayers.indices.contains(keyframe.layer) else { return }
        var offset = keyframe.lead
        var started = false
        while offset > 0 {
            let sequence = keyframe.view.sequence &- offset
            offset -= 1
            stream.videoLayers[keyframe.layer].cache.withPacket(sequenceNumber: sequence) { raw in
                guard let view = RTPPacketView(raw), view.timestamp == keyframe.view.timestamp else { return }
                send(PendingPacket(packet: raw, view: view, isVideo: true, keyframe: !started, lead: 0, layer: keyframe.layer, padding: 0),
                     via: output, from: stream)
                started = true
            }
        }
    }

    /// Whether a video packet goes into a TCP viewer's queue: a frame goes in whole or not at
    /// all. At a frame's first packet with the queue over its budget, the viewer's video stops
    /// until there is room and then restarts at a keyframe (``LayeredVideoRewriter/restartAtKeyframe()``):
    /// a frame dropped makes every later one undecodable, so nothing of them is sent. Over UDP
    /// the queue is the network's, and loss tells the estimator.
    @inline(__always)
    func admitsFrame(of item: PendingPacket, via output: ViewerOutput) -> Bool {
        let viewer = output.viewer
        if viewer.awaitsTransportRoom { return false }
        guard output.backlogged, let video = viewer.video, video.current == item.layer,
              video.rewriter.lastTimestamps?.source != item.view.timestamp else { return true }
        viewer.video?.restartAtKeyframe()
        viewer.awaitsTransportRoom = true
        viewer.transportRestarts &+= 1
        return false
    }

    /// A TCP viewer's queue has room again: its layer's next keyframe is asked for, and starts it.
    func transportHasRoom(for viewer: ViewerSession) {
        viewer.awaitsTransportRoom = false
        if let layer = viewer.video?.target { wantKeyframe(layer: layer, prompt: true) }
    }

    /// Rewrites one packet for one viewer into the sender's next slot, protects it, queues it.
    /// Video goes only to viewers on its layer (or switching to it at this keyframe).
    @inline(__always)
    package func send(_ item: PendingPacket, via output: ViewerOutput, from stream: StreamSource) {
        let viewer = output.viewer
        let view = item.view
        let payload = UnsafeRawBufferPointer(rebasing: item.packet[view.payloadRange])
        let numbers: (sequence: UInt16, timestamp: UInt32)?
        let payloadType: UInt8
        let ssrc: UInt32
        var startsLayer = false
        // Optional chaining mutates the rewriters in place (a copy would copy their buffers).
        if item.isVideo {
            guard viewer.video != nil, admitsFrame(of: item, via: output) else { return }
            let layerBefore = viewer.video?.current
            numbers = viewer.video?.map(layer: item.layer, sequence: view.sequence, timestamp: view.timestamp,
                                        startsKeyframe: item.keyframe, now: output.now) {
                stream.videoLayers.indices.contains($0) ? stream.videoLayers[$0].clock : nil
            }
            startsLayer = viewer.video?.current != layerBefore
            payloadType = viewer.video?.payloadType ?? 0
            ssrc = viewer.video?.ssrc ?? 0
        } else {
            numbers = viewer.audio?.map(sequence: view.sequence, timestamp: view.timestamp, startsKeyframe: true)
            payloadType = viewer.audio?.payloadType ?? 0
            ssrc = viewer.audio?.ssrc ?? 0
        }
        guard let numbers,
              emit(OutgoingRTP(marker: view.marker, payloadType: payloadType, sequence: numbers.sequence,
                                      timestamp: numbers.timestamp, ssrc: ssrc, payload: payload, padding: item.padding), via: output) != nil
        else { return }
        if item.padding > 0 { paddedPackets += 1 }
        if item.isVideo {
            viewer.history.recordSent(sequence: numbers.sequence, timestamp: numbers.timestamp, marker: view.marker)
            viewer.estimator.nackLoss.sent(numbers.sequence, startsLayer: startsLayer)
            viewer.videoPackets &+= 1
            viewer.videoOctets &+= UInt32(truncatingIfNeeded: payload.count)
            viewer.selector.probe.countSent(1)
        } else {
            viewer.audioPackets &+= 1
            viewer.audioOctets &+= UInt32(truncatingIfNeeded: payload.count)
        }
    }
}
