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
    struct PendingPacket {
        let packet: [UInt8]
        let view: PacketView
        let isVideo: Bool
        let keyframe: Bool
        /// RTP padding octets to add so that it is as long as the packet before it.
        let padding: Int
    }

    /// Padding beyond this many octets is not worth it: such a packet ends its run.
    static let maxRunPadding = 8

    /// Enough for a 2.5 Mbit/s keyframe's worth of packets; bounds the latency a batch adds
    /// (the last viewer of a batch waits for all copies before it).
    static let maxPendingPackets = 32

    func queueForFanOut(_ packet: [UInt8], view: PacketView, isVideo: Bool, keyframe: Bool, sender: BatchedDatagramSender) {
        pendingPackets.append(PendingPacket(packet: packet, view: view, isVideo: isVideo, keyframe: keyframe,
                                            padding: isVideo ? Self.runPadding(payloadSize: view.payloadRange.count,
                                                                               after: pendingPackets.last) : 0))
        if pendingPackets.count >= Self.maxPendingPackets { fanOutPending(sender: sender) }
    }

    /// The padding that makes a video payload of `payloadSize` octets as long as the padded
    /// payload of the video packet before it, when that is at most ``maxRunPadding`` longer.
    static func runPadding(payloadSize: Int, after previous: PendingPacket?) -> Int {
        guard let previous, previous.isVideo else { return 0 }
        let runSize = previous.view.payloadRange.count + previous.padding
        let padding = runSize - payloadSize
        return padding > 0 && padding <= maxRunPadding ? padding : 0
    }

    /// Sends every pending packet to every connected viewer, each viewer's packets in a row.
    func fanOutPending(sender: BatchedDatagramSender) {
        guard !pendingPackets.isEmpty else { return }
        pendingPackets.withUnsafeBufferPointer { pending in
            for viewer in viewers {
                guard let destination = viewer.destination, viewer.peer.canSendMedia else { continue }
                for index in pending.indices {
                    let item = pending[index]
                    item.packet.withUnsafeBytes { raw in
                        send(item.view, payload: UnsafeRawBufferPointer(rebasing: raw[item.view.payloadRange]),
                             isVideo: item.isVideo, keyframe: item.keyframe, padding: item.padding,
                             to: viewer, at: destination, sender: sender)
                    }
                }
            }
        }
        pendingPackets.removeAll(keepingCapacity: true)
    }

    /// Rewrites one packet for one viewer into the sender's next slot, protects it, queues it.
    @inline(__always)
    func send(_ view: PacketView, payload: UnsafeRawBufferPointer, isVideo: Bool, keyframe: Bool, padding: Int = 0,
              to viewer: ViewerSession, at destination: DatagramDestination, sender: BatchedDatagramSender) {
        let mapped: (sequence: UInt16, timestamp: UInt32)??
        if isVideo {
            mapped = viewer.video?.map(sequence: view.sequence, timestamp: view.timestamp, startsKeyframe: keyframe)
        } else {
            mapped = viewer.audio?.map(sequence: view.sequence, timestamp: view.timestamp, startsKeyframe: true)
        }
        guard let mappedOrNil = mapped, let numbers = mappedOrNil,
              let track = isVideo ? viewer.video : viewer.audio else { return }
        let slot = sender.nextSlot()
        let length = 12 + payload.count + padding
        guard length + 16 <= slot.count else { viewer.packetsDropped += 1; return }
        Self.writeHeader(into: slot, padded: padding > 0, marker: view.marker, payloadType: track.payloadType,
                         sequence: numbers.sequence, timestamp: numbers.timestamp, ssrc: track.ssrc)
        UnsafeMutableRawBufferPointer(rebasing: slot[12..<(12 + payload.count)]).copyMemory(from: payload)
        if padding > 0 {
            Self.writePadding(into: slot, count: padding, endingAt: length)
            paddedPackets += 1
        }
        guard let protectedLength = viewer.peer.protectRTP(buffer: slot, length: length) else {
            viewer.packetsDropped += 1
            return
        }
        sender.commit(length: protectedLength, to: destination)
        viewer.packetsOut += 1
        viewer.bytesOut += UInt64(protectedLength)
        packetsOut += 1
        bytesOut += UInt64(protectedLength)
        if isVideo {
            viewer.videoPackets &+= 1
            viewer.videoOctets &+= UInt32(truncatingIfNeeded: payload.count)
        } else {
            viewer.audioPackets &+= 1
            viewer.audioOctets &+= UInt32(truncatingIfNeeded: payload.count)
        }
    }

    /// RFC 3550 §5.1 fixed header (no CSRCs, no extension) with a viewer's numbers.
    @inline(__always)
    static func writeHeader(into slot: UnsafeMutableRawBufferPointer, padded: Bool, marker: Bool, payloadType: UInt8,
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
    static func writePadding(into slot: UnsafeMutableRawBufferPointer, count: Int, endingAt end: Int) {
        for index in (end - count)..<(end - 1) { slot[index] = 0 }
        slot[end - 1] = UInt8(count)
    }
}
