import NIOCore
import NIOWebSocket

/// The send side of one client's WebSocket. Frames are JSON already encoded into a
/// `ByteBuffer` (shared, never copied per client) and are written straight onto the NIO
/// channel on its event loop: no task, actor hop or async writer per delivery.
///
/// Slow clients: once more than `limits.client_buffer_bytes` wait in the channel (it turns
/// unwritable), the connection is closed instead of buffering without bound; the client
/// reconnects and resumes from its last message id, so it loses nothing.
public final class ChatOutlet: Sendable {
    /// The member id this connection gets when it joins (`c<id>`).
    public let id: UInt64
    let channel: any Channel

    init(id: UInt64, channel: any Channel) {
        self.id = id
        self.channel = channel
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// Sends one text message; callable from anywhere (hops to the event loop if needed).
    func send(_ payload: ByteBuffer) {
        if channel.eventLoop.inEventLoop {
            writeOnLoop(payload)
        } else {
            channel.eventLoop.execute { self.writeOnLoop(payload) }
        }
    }

    /// Writes and flushes one text message. Only on `eventLoop` (``FanOut`` batches these).
    func writeOnLoop(_ payload: ByteBuffer) {
        guard channel.isActive else { return }
        guard channel.isWritable else {
            channel.close(promise: nil)
            return
        }
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: payload), promise: nil)
    }

    /// Drops the connection (the client sees 1006 and may reconnect).
    func disconnect() {
        channel.close(promise: nil)
    }
}
