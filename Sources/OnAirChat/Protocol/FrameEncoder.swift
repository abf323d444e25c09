import Foundation
import NIOCore

/// Turns a ``ServerFrame`` into the bytes of one WebSocket text message. A broadcast is
/// encoded once and the same `ByteBuffer` (shared storage, no copy) goes to every socket.
/// Not Sendable (JSONEncoder is a class): each owner (a room, a connection) keeps its own.
struct FrameEncoder {
    private let encoder: JSONEncoder

    init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
    }

    func encode(_ frame: ServerFrame) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try encoder.encode(frame))
        } catch {
            // Only non-finite numbers can fail, and frames carry none; answer something valid anyway.
            return ByteBuffer(string: #"{"type":"error","code":"internal_error","message":"unencodable frame"}"#)
        }
    }
}
