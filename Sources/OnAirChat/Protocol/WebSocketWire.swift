import NIOCore

/// Server-to-client WebSocket text messages as finished wire bytes (RFC 6455 §5.2 base
/// framing; servers never mask, §5.1), built once per message so that fan-out writes the same
/// bytes to every socket without a frame encoder, header allocation or boxing per client.
enum WebSocketWire {
    /// One text message, fragmented (§5.4) into frames of at most `maxFrameBytes` payload.
    static func textMessage(_ payload: ByteBuffer, maxFrameBytes: Int) -> ByteBuffer {
        let chunk = max(1, maxFrameBytes)
        let frames = max(1, (payload.readableBytes + chunk - 1) / chunk)
        var wire = ByteBufferAllocator().buffer(capacity: payload.readableBytes + frames * 10)
        var rest = payload
        var first = true
        repeat {
            let length = min(chunk, rest.readableBytes)
            let last = length == rest.readableBytes
            // FIN bit, then opcode 0x1 (text) for the first frame, 0x0 (continuation) after.
            wire.writeInteger(UInt8((last ? 0x80 : 0) | (first ? 0x1 : 0x0)))
            if length < 126 {
                wire.writeInteger(UInt8(length))
            } else if length <= 0xFFFF {
                wire.writeInteger(UInt8(126))
                wire.writeInteger(UInt16(length))
            } else {
                wire.writeInteger(UInt8(127))
                wire.writeInteger(UInt64(length))
            }
            var slice = rest.readSlice(length: length)!
            wire.writeBuffer(&slice)
            first = false
        } while rest.readableBytes > 0
        return wire
    }

    /// A close frame (RFC 6455 §5.5.1): status `code`, then `reason` cut to fit the 125-byte
    /// control-frame payload (§5.5) on a UTF-8 boundary.
    static func closeFrame(code: UInt16, reason: String) -> ByteBuffer {
        var text = Substring(reason)
        while text.utf8.count > 123 { text = text.dropLast() }
        var wire = ByteBufferAllocator().buffer(capacity: 4 + text.utf8.count)
        wire.writeInteger(UInt8(0x88))
        wire.writeInteger(UInt8(2 + text.utf8.count))
        wire.writeInteger(code)
        wire.writeString(String(text))
        return wire
    }
}
