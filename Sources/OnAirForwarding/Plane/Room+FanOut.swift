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
                guard let destination = viewer.destination, viewer.peer.canSendMedia else { continue }
                for index in pending.indices {
                    let item = pending[index]
                    if item.lead > 0, viewer.video?.startsAt(layer: item.layer) == true {
                        sendPreamble(of: item, to: viewer, at: destination, from: stream, sender: sender, now: now)
                    }
                    send(item.view, payload: UnsafeRawBufferPointer(rebasing: item.packet[item.view.payloadRange]),
                         isVideo: item.isVideo, keyframe: item.keyframe, layer: item.layer, padding: item.padding,
                         to: viewer, at: destination, from: stream, sender: sender, now: now)
                }
            }
        }
        pendingPackets.removeAll(keepingCapacity: true)
    }

    /// A viewer starts (or switches) at this keyframe: first the preamble packets that came
    /// before its IDR (the SPS and PPS it decodes with), from the layer's cache. The first of
    /// them starts the viewer's rewriter, so its numbers run on from there without a gap.
    private func sendPreamble(of keyframe: PendingPacket, to viewer: ViewerSession, at destination: DatagramDestination,
                              from stream: StreamSource, sender: any DatagramSink, now: MonoTime) {
        guard stream.videoLayers.indices.contains(keyframe.layer) else { return }
        var offset = keyframe.lead
        var started = false
        while offset > 0 {
            let sequence = keyframe.view.sequence &- offset
            offset -= 1
            stream.videoLayers[keyframe.layer].cache.withPacket(sequenceNumber: sequence) { raw in
                guard let view = RTPPacketView(raw), view.timestamp == keyframe.view.timestamp else { return }
                send(view, payload: UnsafeRawBufferPointer(rebasing: raw[view.payloadRange]), isVideo: true,
                     keyframe: !started, layer: keyframe.layer, padding: 0, to: viewer, at: destination, from: stream,
                     sender: sender, now: now)
                started = true
            }
        }
    }

    /// Rewrites one packet for one viewer into the sender's next slot, protects it, queues it.
    /// Video goes only to viewers on its layer (or switching to it at this keyframe).
    @inline(__always)
    package func send(_ view: RTPPacketView, payload: UnsafeRawBufferPointer, isVideo: Bool, keyframe: Bool, layer: Int, padding: Int,
              to viewer: ViewerSession, at destination: DatagramDestination, from stream: StreamSource,
              sender: any DatagramSink, now: MonoTime) {
        let numbers: (sequence: UInt16, timestamp: UInt32)?
        let payloadType: UInt8
        let ssrc: UInt32
        var startsLayer = false
        // Optional chaining mutates the rewriters in place (a copy would copy their buffers).
        if isVideo {
            guard viewer.video != nil else { return }
            let layerBefore = viewer.video?.current
            numbers = viewer.video?.map(layer: layer, sequence: view.sequence, timestamp: view.timestamp, startsKeyframe: keyframe,
                                        now: now) { stream.videoLayers.indices.contains($0) ? stream.videoLayers[$0].clock : nil }
            startsLayer = viewer.video?.current != layerBefore
            payloadType = viewer.video?.payloadType ?? 0
            ssrc = viewer.video?.ssrc ?? 0
        } else {
            numbers = viewer.audio?.map(sequence: view.sequence, timestamp: view.timestamp, startsKeyframe: true)
            payloadType = viewer.audio?.payloadType ?? 0
            ssrc = viewer.audio?.ssrc ?? 0
        }
        guard let numbers,
              emit(OutgoingRTP(marker: view.marker, payloadType: payloadType, sequence: numbers.sequence, timestamp: numbers.timestamp,
                               ssrc: ssrc, payload: payload, padding: padding),
                   to: viewer, at: destination, sender: sender, now: now) != nil else { return }
        if padding > 0 { paddedPackets += 1 }
        if isVideo {
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

    /// Writes one packet for a viewer (its header, its header extensions, the payload and
    /// `padding` octets of RTP padding) into the sender's next slot, protects and queues it,
    /// and records it for the viewer's transport-cc. Returns the protected length.
    @inline(__always)
    @discardableResult
    package func emit(_ packet: OutgoingRTP, to viewer: ViewerSession, at destination: DatagramDestination,
                      sender: any DatagramSink, now: MonoTime) -> Int? {
        let (marker, payloadType, sequence, timestamp, ssrc, payload, padding) =
            (packet.marker, packet.payloadType, packet.sequence, packet.timestamp, packet.ssrc, packet.payload, packet.padding)
        let slot = sender.nextSlot()
        let headerLength = 12 + viewer.extensions.length
        let length = headerLength + payload.count + padding
        guard length + 16 <= slot.count else { viewer.packetsDropped += 1; return nil }
        Self.writeHeader(into: slot, padded: padding > 0, marker: marker, payloadType: payloadType,
                         sequence: sequence, timestamp: timestamp, ssrc: ssrc)
        let transportSequence = viewer.extensions.write(into: slot, now: now)
        if !payload.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: slot[headerLength..<(headerLength + payload.count)]).copyMemory(from: payload)
        }
        if padding > 0 { Self.writePadding(into: slot, count: padding, endingAt: length) }
        guard let protectedLength = viewer.peer.protectRTP(buffer: slot, length: length, headerLength: headerLength,
                                                           sequence: sequence, ssrc: ssrc) else {
            viewer.packetsDropped += 1
            return nil
        }
        sender.commit(length: protectedLength, to: destination)
        if let transportSequence { viewer.estimator.sent(transportSequence: transportSequence, size: protectedLength, now: now) }
        viewer.packetsOut += 1
        viewer.bytesOut += UInt64(protectedLength)
        if ssrc != viewer.audio?.ssrc { viewer.videoPayloadBytes &+= UInt64(payload.count + padding) }
        packetsOut += 1
        bytesOut += UInt64(protectedLength)
        return protectedLength
    }

    /// RFC 3550 §5.1 fixed header (no CSRCs, no extension) with a viewer's numbers.
    @inline(__always)
    package static func writeHeader(into slot: UnsafeMutableRawBufferPointer, padded: Bool, marker: Bool, payloadType: UInt8,
                            sequence: UInt16, timestamp: UInt32, ssrc: UInt32) {
        slot[0] = padded ? 0xA0 : 0x80
        slot[1] = (marker ? 0x80 : 0) | payloadType
        slot[2] = UInt8(truncatingIfNeeded: sequence >> 8)
        slot[3] = UInt8(truncatingIfNeeded: sequence)
        slot.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        slot.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
    }

    /// RFC 3550 §5.1 padding: `count` octets ending at `end`, the last of which counts them
    /// (itself included).
    @inline(__always)
    package static func writePadding(into slot: UnsafeMutableRawBufferPointer, count: Int, endingAt end: Int) {
        for index in (end - count)..<(end - 1) { slot[index] = 0 }
        slot[end - 1] = UInt8(count)
    }
}
