import NIOCore
import OnAirForwarding
import OnAirWebRTC
import OnAirWire

/// One ICE-TCP connection to a media worker (RFC 6544, passive side): STUN, DTLS, SRTP and
/// SRTCP both ways, each packet framed by its length (RFC 4571 §2). Confined to its worker's
/// event loop, like everything the worker owns.
///
/// Unauthenticated, a connection may send at most ``TCPMediaLimits/bytesBeforeAuthentication``
/// and must pass a STUN check within the connect timeout, or it is closed.
///
/// Outgoing packets wait in a queue of ours until the kernel has room: the kernel keeps
/// little unsent (`TCP_NOTSENT_LOWAT`), so the queue is where a slow link shows. Its budget is
/// about ``TCPMediaLimits/queueSeconds`` of what the session sends: over it, the plane starts
/// no new video frame (``hasRoom``; the kernel retransmits, so a slow link shows as this queue,
/// never as loss, and its seconds would be latency), and the viewer's video restarts at a
/// keyframe once there is room. Anything queued is sent; only past a hard limit is a packet
/// dropped.
final class TCPMediaConnection: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: used only on its worker's event loop.
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let address: TransportAddress
    private unowned let engine: RelayEngine
    private let limits: TCPMediaLimits
    private var context: ChannelHandlerContext?
    private var deframer = RFC4571Deframer(maximumFrame: 2_048)
    private var timeout: Scheduled<Void>?
    private(set) var authenticated = false
    private var bytesBeforeAuthentication = 0
    /// Framed packets not yet handed to the channel (allocated when authenticated).
    private var queue = ByteBuffer()
    /// What the channel writes: copied from `queue` only while the channel has nothing pending.
    private var wire = ByteBuffer()
    private var pushing = false
    /// Close once the queue is out (the session ended).
    private var closing = false
    /// Whether the connection is in its owner's list of those to push at the next flush.
    var awaitingPush = false
    /// RTP bytes offered since the last reading, and their rate (bytes/s), for the budget.
    private var offeredBytes = 0
    private var offeredRate = 0.0
    private var lastReading = MonoTime.zero
    /// Bytes the queue may hold before no new frame goes in.
    private var budget: Int
    private(set) var droppedPackets: UInt64 = 0

    init(address: TransportAddress, engine: RelayEngine, limits: TCPMediaLimits) {
        self.address = address
        self.engine = engine
        self.limits = limits
        budget = limits.minimumQueueBytes
    }

    // MARK: channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        let timeout = limits.connectTimeout
        self.timeout = context.eventLoop.scheduleTask(in: timeout) { [weak self] in
            guard let self, !self.authenticated else { return }
            self.engine.transports.tcpTimedOut &+= 1
            self.context?.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if !authenticated {
            bytesBeforeAuthentication += bytes.readableBytes
            guard bytesBeforeAuthentication <= limits.bytesBeforeAuthentication else {
                engine.transports.tcpOverLimit &+= 1
                context.close(promise: nil)
                return
            }
        }
        let now = MonoTime.now()
        bytes.withUnsafeReadableBytes { read in
            deframer.feed(read) { engine.receive(frame: $0, from: address, now: now) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        engine.readBatchComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { push() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        self.context = nil
        engine.connectionClosed(self)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A reset or a failed write: the connection is over; channelInactive follows.
        context.close(promise: nil)
    }

    // MARK: the session's side

    /// A STUN check over this connection passed: it belongs to a session now.
    func authenticate() {
        guard !authenticated, let context else { return }
        authenticated = true
        timeout?.cancel()
        timeout = nil
        queue = context.channel.allocator.buffer(capacity: 64 * 1024)
        wire = context.channel.allocator.buffer(capacity: limits.writeChunkBytes)
    }

    /// Queues one packet; false when it was dropped: past the hard limit, or RTP to a
    /// connection not yet authenticated, which gets nothing but STUN answers. (The budget is
    /// the plane's to keep, a whole frame at a time: ``hasRoom``.)
    func enqueue(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard context != nil, !closing, packet.count <= 65_535 else { return false }
        let isRTP = DatagramKind.classify(packet) == .rtp
        // Before its check passed, a connection gets STUN answers only.
        guard authenticated || !isRTP,
              queue.readableBytes + 2 + packet.count <= (authenticated ? limits.hardQueueBytes : limits.writeChunkBytes) else {
            droppedPackets &+= 1
            return false
        }
        if isRTP { offeredBytes &+= packet.count }
        let (high, low) = RFC4571Deframer.header(length: packet.count)
        queue.writeInteger(UInt16(high) << 8 | UInt16(low))
        queue.writeBytes(packet)
        return true
    }

    /// Hands queued packets to the channel while it has nothing pending (the kernel took all
    /// it was given), a chunk at a time so that little waits where it cannot be dropped.
    func push() {
        guard let context, !pushing else { return }
        pushing = true
        defer { pushing = false }
        while queue.readableBytes > 0 && context.channel.isWritable {
            let chunk = min(queue.readableBytes, limits.writeChunkBytes)
            wire.clear()
            _ = queue.withUnsafeReadableBytes { wire.writeBytes(UnsafeRawBufferPointer(rebasing: $0[0..<chunk])) }
            queue.moveReaderIndex(forwardBy: chunk)
            context.writeAndFlush(wrapOutboundOut(wire), promise: nil)
        }
        if queue.readableBytes == 0 {
            queue.clear()
        } else if queue.readerIndex > queue.capacity / 2 {
            queue.discardReadBytes()
        }
        if closing && queue.readableBytes == 0 { context.close(promise: nil) }
    }

    /// Closes the connection once what is queued has been handed on, or after
    /// ``TCPMediaLimits/closeGrace`` whatever is left (a peer that stopped reading).
    func closeWhenSent() {
        guard !closing, let context else { return }
        closing = true
        context.eventLoop.scheduleTask(in: limits.closeGrace) { [weak self] in self?.close() }
        push()
    }

    /// Closes the connection now.
    func close() {
        context?.close(promise: nil)
    }

    /// Whether a new frame may go in: the queue is within budget (the channel holds at most
    /// one chunk more: it is given one only when it has nothing left).
    var hasRoom: Bool { queue.readableBytes <= budget }

    /// Updates the queue's budget from the rate RTP was offered at (every ~0.5 s). The rate
    /// falls slowly (a tenth per reading): while video waits for room only audio is offered,
    /// and the budget must stay that of the video it waits to send.
    func updateBudget(now: MonoTime) {
        let elapsed = (now - lastReading).seconds
        guard elapsed >= 0.5 else { return }
        let rate = Double(offeredBytes) / elapsed
        offeredRate = lastReading == .zero ? rate : max(0.5 * offeredRate + 0.5 * rate, 0.9 * offeredRate)
        offeredBytes = 0
        lastReading = now
        budget = min(limits.hardQueueBytes, max(limits.minimumQueueBytes, Int(offeredRate * limits.queueSeconds)))
    }
}
