import OnAirRTP
import OnAirWire

/// One viewer's way out for one turn of the loop: where its datagrams go and the sender whose
/// slots they are written into and protected in. Made once per viewer and read batch (or
/// NACK, or tick), so that each packet's call carries one value (``Room/emit(_:via:)``).
package struct ViewerOutput {
    package let viewer: ViewerSession
    package let destination: DatagramDestination
    package let sender: any DatagramSink
    package let now: MonoTime
    /// The viewer's TCP queue holds its budget (``DatagramSink/hasRoom(for:)``): no new frame,
    /// probe or resend goes in. Always false over UDP.
    package let backlogged: Bool

    /// nil while the viewer cannot be sent media (no address yet, no SRTP keys).
    @inline(__always)
    package init?(_ viewer: ViewerSession, sender: any DatagramSink, now: MonoTime) {
        guard let destination = viewer.destination, viewer.peer.canSendMedia else { return nil }
        self.viewer = viewer
        self.destination = destination
        self.sender = sender
        self.now = now
        backlogged = destination.address.transport == .tcp && !sender.hasRoom(for: destination)
    }

    /// Writes one packet (its header, the viewer's header extensions, the payload and
    /// `padding` octets of RTP padding) into the sender's next slot, protects and queues it,
    /// and records it for the viewer's transport-cc. Returns the protected length. (Through
    /// ``Room/emit(_:via:)``, which counts it for the room.)
    @inline(__always)
    @discardableResult
    func emit(_ packet: OutgoingRTP) -> Int? {
        let slot = sender.nextSlot()
        let headerLength = 12 + viewer.extensions.length
        let length = headerLength + packet.payload.count + packet.padding
        guard length + 16 <= slot.count else { viewer.packetsDropped += 1; return nil }
        packet.writeFixedHeader(into: slot)
        let transportSequence = viewer.extensions.write(into: slot, now: now)
        if !packet.payload.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: slot[headerLength..<(headerLength + packet.payload.count)]).copyMemory(from: packet.payload)
        }
        if packet.padding > 0 { OutgoingRTP.writePadding(into: slot, count: packet.padding, endingAt: length) }
        guard let protectedLength = viewer.peer.protectRTP(buffer: slot, length: length, headerLength: headerLength,
                                                           sequence: packet.sequence, ssrc: packet.ssrc) else {
            viewer.packetsDropped += 1
            return nil
        }
        sender.commit(length: protectedLength, to: destination)
        if let transportSequence { viewer.estimator.sent(transportSequence: transportSequence, size: protectedLength, now: now) }
        viewer.packetsOut += 1
        viewer.bytesOut += UInt64(protectedLength)
        if packet.ssrc != viewer.audio?.ssrc { viewer.videoPayloadBytes &+= UInt64(packet.payload.count + packet.padding) }
        return protectedLength
    }
}

extension Room {
    /// Sends one packet to a viewer of this room (``ViewerOutput/emit(_:)``) and counts it.
    @inline(__always)
    @discardableResult
    package func emit(_ packet: OutgoingRTP, via output: ViewerOutput) -> Int? {
        guard let length = output.emit(packet) else { return nil }
        packetsOut += 1
        bytesOut += UInt64(length)
        return length
    }
}
