import NIOCore

/// Closes HTTP connections that hold a socket without using it, from the socket end of the
/// pipeline (raw bytes, ahead of the HTTP decoder, so that it sees every byte either way,
/// WebSocket frames and the relay's LL-HLS answers included):
///
/// - `requestHead`: a new connection must deliver a complete request head (up to the empty
///   line) within this time of being accepted. Idle sockets and slowloris clients (a head sent
///   a byte at a time) are closed after it. Hummingbird has no such limit: measured with
///   2,000 idle + 2,000 slowloris connections per server (Tests/Interop/test_abuse.py), the
///   relay and the chat closed none of them.
/// - `idle`: a connection with no byte read or written for this long is closed (keep-alive
///   connections parked after a request, dead WebSocket peers between pings). Must exceed
///   the longest a server legitimately stays silent (the relay holds a blocking LL-HLS
///   playlist request up to three target durations; the chat pings WebSockets every 30 s).
///
/// A slow request after the first on a keep-alive connection, or a slowly sent body, is only
/// bounded by `idle` (one byte per `idle` keeps it).
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any   // writes pass through untouched (ByteBuffer or FileRegion)
    typealias OutboundOut = Any

    private let requestHead: TimeAmount?
    private let idle: TimeAmount?
    private var openedAt = NIODeadline.now()
    private var lastActivity = NIODeadline.now()
    /// The first request's head is complete (its empty line was read).
    private var headComplete = false
    /// The last byte scanned ended a line (CR bytes aside): a line feed next ends the head.
    private var atLineStart = false
    private var timer: Scheduled<Void>?

    init(requestHead: TimeAmount?, idle: TimeAmount?) {
        self.requestHead = requestHead
        self.idle = idle
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        if !headComplete { scan(unwrapInboundIn(data)) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastActivity = .now()
        context.write(data, promise: promise)
    }

    /// RFC 9112 §2.2: a head ends with an empty line; a bare LF ends a line too (as the
    /// decoder accepts it), so CR bytes are skipped.
    private func scan(_ buffer: ByteBuffer) {
        for byte in buffer.readableBytesView {
            switch byte {
            case UInt8(ascii: "\n"):
                if atLineStart {
                    headComplete = true
                    return
                }
                atLineStart = true
            case UInt8(ascii: "\r"):
                break
            default:
                atLineStart = false
            }
        }
    }

    private func start(context: ChannelHandlerContext) {
        guard timer == nil, requestHead != nil || idle != nil else { return }
        openedAt = .now()
        lastActivity = openedAt
        schedule(context: context)
    }

    /// The next moment a limit can run out.
    private func nextDeadline() -> NIODeadline? {
        let head = headComplete ? nil : requestHead.map { openedAt + $0 }
        let quiet = idle.map { lastActivity + $0 }
        switch (head, quiet) {
        case let (head?, quiet?): return min(head, quiet)
        case let (head?, nil): return head
        case let (nil, quiet?): return quiet
        case (nil, nil): return nil
        }
    }

    private func schedule(context: ChannelHandlerContext) {
        guard let deadline = nextDeadline() else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            self.timer = nil
            self.check(context: context)
        }
    }

    private func check(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let now = NIODeadline.now()
        if !headComplete, let requestHead, now >= openedAt + requestHead {
            context.close(promise: nil)
        } else if let idle, now >= lastActivity + idle {
            context.close(promise: nil)
        } else {
            schedule(context: context)
        }
    }
}
