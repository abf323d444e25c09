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
    /// Larger messages go out as several frames (RFC 6455 §5.4 fragmentation), so that a client
    /// with the same frame limit as ours (`limits.max_frame_bytes`) can read a long history.
    let maxFrameBytes: Int

    init(id: UInt64, channel: any Channel, maxFrameBytes: Int) {
        self.id = id
        self.channel = channel
        self.maxFrameBytes = max(maxFrameBytes, 1024)
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
        guard payload.readableBytes > maxFrameBytes else {
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: payload), promise: nil)
            return
        }
        var rest = payload
        var opcode = WebSocketOpcode.text
        while rest.readableBytes > maxFrameBytes {
            // Slices share the payload's storage: no copy.
            channel.write(WebSocketFrame(fin: false, opcode: opcode, data: rest.readSlice(length: maxFrameBytes)!), promise: nil)
            opcode = .continuation
        }
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .continuation, data: rest), promise: nil)
    }

    /// Drops the connection (the client sees 1006 and may reconnect).
    func disconnect() {
        channel.close(promise: nil)
    }
}
