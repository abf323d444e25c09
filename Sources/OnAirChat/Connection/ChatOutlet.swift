import NIOCore

/// The send side of one client's WebSocket. Messages arrive as finished wire bytes
/// (``WebSocketWire``, built once per message and shared by every socket) and are written
/// straight to the socket on its event loop through ``RawFrameWriter`` at the head of the
/// pipeline: no task, actor hop, frame encoder or allocation per delivery.
///
/// Slow clients: once more than `limits.client_buffer_bytes` wait in the channel (it turns
/// unwritable), the connection is closed instead of buffering without bound; the client
/// reconnects and resumes from its last message id, so it loses nothing.
public final class ChatOutlet: Sendable {
    /// The member id this connection gets when it joins (`c<id>`).
    public let id: UInt64
    let channel: any Channel
    private let writer: RawFrameWriter

    private init(id: UInt64, channel: any Channel, writer: RawFrameWriter) {
        self.id = id
        self.channel = channel
        self.writer = writer
    }

    /// Puts a ``RawFrameWriter`` at the head of `channel`'s pipeline and returns the outlet.
    static func install(id: UInt64, on channel: any Channel) async throws -> ChatOutlet {
        let writer = RawFrameWriter()
        try await channel.pipeline.addHandler(writer, position: .first).get()
        return ChatOutlet(id: id, channel: channel, writer: writer)
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// Sends one message now (write + flush); callable from anywhere (hops to the event loop).
    func send(_ wire: ByteBuffer) {
        if channel.eventLoop.inEventLoop {
            writer.write(wire)
        } else {
            channel.eventLoop.execute { self.writer.write(wire) }
        }
    }

    /// The raw writer, for ``FanOut`` (it writes on `eventLoop` only).
    var frameWriter: RawFrameWriter { writer }

    /// Sends `wire` (an error frame saying why), then a close frame (1008 policy violation,
    /// RFC 6455 §7.4.1, with `reason`), then closes the socket: a kick or a ban.
    func close(after wire: ByteBuffer, reason: String) {
        var joined = wire
        var close = WebSocketWire.closeFrame(code: 1008, reason: reason)
        joined.writeBuffer(&close)
        let bytes = joined
        if channel.eventLoop.inEventLoop {
            writer.writeAndClose(bytes)
        } else {
            channel.eventLoop.execute { self.writer.writeAndClose(bytes) }
        }
    }

    /// Drops the connection (the client sees 1006 and may reconnect).
    func disconnect() {
        channel.close(promise: nil)
    }
}
