import Foundation
import NIOCore

/// Turns a ``ServerFrame`` into the wire bytes of one WebSocket text message (JSON, then
/// framing: ``WebSocketWire``). A broadcast is encoded once and the same `ByteBuffer`
/// (shared storage, no copy) goes to every socket. Not Sendable (JSONEncoder is a class):
/// each owner (a room, a connection) keeps its own.
struct FrameEncoder {
    private let encoder: JSONEncoder
    private let maxFrameBytes: Int

    init(maxFrameBytes: Int) {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        self.maxFrameBytes = maxFrameBytes
    }

    func encode(_ frame: ServerFrame) -> ByteBuffer {
        let json: ByteBuffer
        do {
            json = ByteBuffer(bytes: try encoder.encode(frame))
        } catch {
            // Only non-finite numbers can fail, and frames carry none; answer something valid anyway.
            json = ByteBuffer(string: #"{"type":"error","code":"internal_error","message":"unencodable frame"}"#)
        }
        return WebSocketWire.textMessage(json, maxFrameBytes: maxFrameBytes)
    }
}
