import NIOCore

/// The first handler after the socket: writes finished WebSocket frames as raw bytes, in
/// order with everything the WebSocket handlers behind it write (pings, close frames). It
/// follows the channel's activity and writability from the pipeline's own events, so a
/// delivery reads two booleans instead of asking the channel.
final class RawFrameWriter: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    // All state is set and read only on the channel's event loop (pipeline callbacks and the
    // writes of outlets and FanOut, which run there).
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?
    private var active = false
    private var writable = true

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        active = context.channel.isActive
        writable = context.channel.isWritable
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        active = false
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writable = context.channel.isWritable
        context.fireChannelWritabilityChanged()
    }

    /// Writes and flushes one finished message. A socket with more than `client_buffer_bytes`
    /// queued (not writable) is closed: the client resumes from its last id when it reconnects.
    func write(_ bytes: ByteBuffer) {
        guard active, let context else { return }
        guard writable else {
            active = false
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    /// Writes `bytes` (ending in a close frame), then closes the socket once they are written.
    /// Later writes are dropped.
    func writeAndClose(_ bytes: ByteBuffer) {
        guard active, let context else { return }
        active = false
        let promise = context.eventLoop.makePromise(of: Void.self)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        promise.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: promise)
    }
}
